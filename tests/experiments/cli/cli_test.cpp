// End-to-end tests of the agentsim binary: determinism, outputs, exit codes.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include "tests/support/cli_runner.hpp"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

using Result = agentsim::test_support::CliResult;
using agentsim::test_support::run;
using agentsim::test_support::slurp;

class Cli : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // A small, fast variant of the default experiment.
  std::string small_experiment(const std::string& extra_workload = "") {
    const fs::path p = dir / "small.yaml";
    std::ofstream(p) << "name: small\nseed: 7\nmodel: llama-3.1-70b\nsystem: hgx-h200\n"
                        "deployment:\n  tp: 8\n"
                        "serving:\n  step_overhead: \"2ms\"\n  efficiency: {compute: 0.7, memory: 0.8, network: 0.8}\n"
                        "workload:\n  trace: " + kRoot + "/workloads/traces/claude-code-sample/requests.csv\n"
                        "  concurrency: [1, 4, 8]\n  warmup: \"20s\"\n  window: \"60s\"\n  start_spread: \"5s\"\n" +
                            extra_workload;
    return p.string();
  }
};

TEST_F(Cli, RunWritesSummaryWithTheContractColumns) {
  const Result r = run("run " + small_experiment() + " --out " + (dir / "out").string());
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string csv = slurp(dir / "out" / "summary.csv");
  const std::string header = csv.substr(0, csv.find('\n'));
  for (const char* col : {"concurrency", "output_tok_s", "total_tok_s", "agent_output_tok_s_p50", "ttft_s_p50"}) {
    EXPECT_NE(header.find(col), std::string::npos) << col;
  }
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4) << "header + one row per concurrency";
  EXPECT_NE(r.output.find("agents"), std::string::npos) << "prints a table";
}

TEST_F(Cli, SameExperimentTwiceIsByteIdentical) {
  const std::string exp = small_experiment();
  ASSERT_EQ(run("run " + exp + " --out " + (dir / "a").string()).code, 0);
  ASSERT_EQ(run("run " + exp + " --out " + (dir / "b").string()).code, 0);
  const std::string a = slurp(dir / "a" / "summary.csv");
  EXPECT_FALSE(a.empty());
  EXPECT_EQ(a, slurp(dir / "b" / "summary.csv"));
}

TEST_F(Cli, MoreAgentsGiveMoreThroughputAndLessSpeedEach) {
  ASSERT_EQ(run("run " + small_experiment() + " --out " + (dir / "o").string()).code, 0);
  std::istringstream in(slurp(dir / "o" / "summary.csv"));
  std::string line;
  auto fields = [](const std::string& l) {
    std::vector<std::string> f;
    std::stringstream ls(l);
    std::string x;
    while (std::getline(ls, x, ',')) f.push_back(x);
    return f;
  };
  std::getline(in, line);
  // Columns by name: the sweep issue put system and deployment first.
  const auto header = fields(line);
  const auto col = [&](const char* name) {
    return static_cast<std::size_t>(std::find(header.begin(), header.end(), name) - header.begin());
  };
  std::vector<double> out_tok, speed;
  while (std::getline(in, line)) {
    const auto f = fields(line);
    out_tok.push_back(std::stod(f.at(col("output_tok_s"))));
    speed.push_back(std::stod(f.at(col("agent_output_tok_s_p50"))));
  }
  ASSERT_EQ(out_tok.size(), 3u);
  EXPECT_LT(out_tok[0], out_tok[2]);
  EXPECT_GT(speed[0], speed[2]);
}

TEST_F(Cli, BadInputExitsWithTwoAndWritesNothing) {
  const Result r = run("run " + small_experiment("  bogus: 1\n") + " --out " + (dir / "bad").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("workload.bogus: unknown key"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "bad")) << "no output folder on bad input";
}

TEST_F(Cli, NonPositiveCountsAreRejectedByName) {
  // CLI11's own PositiveNumber check printed "Value 0 not in range 0.000000 to 1.79...e308".
  for (const char* bad : {"0", "-5", "inf", "abc"}) {
    const Result r = run(std::string("plan --model llama-3.1-8b --agents ") + bad + " --agent-speed 100");
    EXPECT_EQ(r.code, 2) << bad;
    EXPECT_NE(r.output.find(std::string("--agents: expected a finite number > 0, got '") + bad + "'"),
              std::string::npos) << r.output;
  }
  const Result s = run("model show llama-3.1-8b --context 0");
  EXPECT_EQ(s.code, 2);
  EXPECT_NE(s.output.find("--context: expected a finite number > 0, got '0'"), std::string::npos) << s.output;
}

TEST_F(Cli, OptionValuesAreCheckedAndErrorsNameTheOption) {
  // Each was accepted (the first two silently), or failed without naming its option, before.
  const std::string explain = "explain --model llama-3.1-8b --system hgx-h200 ";
  const std::pair<std::string, std::string> cases[] = {
      {explain + "--micro-batches 0", "--micro-batches: expected a finite number > 0, got '0'"},
      {explain + "--host-kv-tokens -5", "--host-kv-tokens: expected a finite number >= 0, got '-5'"},
      {explain + "--step-overhead -1ms", "--step-overhead: '-1ms' must be finite and non-negative"},
      {"plan --model llama-3.1-8b --agents 5 --agent-speed 50 --ttft-p90 -1s",
       "--ttft-p90: '-1s' must be finite and non-negative"},
      {"plan --model llama-3.1-8b --agents 5 --agent-speed 50 --rack-power 0W",
       "--rack-power: expected a power > 0, got '0W'"},
      {"run " + small_experiment() + " --out " + (dir / "o").string() + " -j -3",
       "--jobs: expected a finite number >= 0, got '-3'"},
  };
  for (const auto& [args, message] : cases) {
    const Result r = run(args);
    EXPECT_EQ(r.code, 2) << args;
    EXPECT_NE(r.output.find(message), std::string::npos) << args << "\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "o"));
}

TEST_F(Cli, ImportPublishedRefusesAFileForItsOutputFolder) {
  const fs::path file = dir / "profiles";
  std::ofstream(file) << "x";
  const Result r = run("calibrate import-published --out " + file.string());
  EXPECT_EQ(r.code, 2) << r.output;  // was an internal filesystem error, exit 1
  EXPECT_NE(r.output.find(file.string() + ": --out names a file; expected a folder (new or existing)"),
            std::string::npos) << r.output;
  EXPECT_EQ(slurp(file), "x");
}

TEST_F(Cli, MissingExperimentFileExitsWithTwo) {
  const Result r = run("run " + (dir / "nope.yaml").string() + " --out " + (dir / "x").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("nope.yaml: cannot open file"), std::string::npos) << r.output;
}

}  // namespace
