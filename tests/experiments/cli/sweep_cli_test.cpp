// End-to-end sweeps through the agentsim binary: outputs and their schema,
// resume, describe, plan (thread/rank invariance and kills: sweep_robustness_test.cpp).
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"
#include <unistd.h>

#include <sys/wait.h>

#include <H5Cpp.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

using Result = agentsim::test_support::CliResult;
using agentsim::test_support::slurp;
Result agentsim(const std::string& args) { return agentsim::test_support::run(args); }

const char* const kOutputs[] = {"summary.csv", "readoffs.csv", "results.h5", "report.html"};

class SweepCli : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_sweepcli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) + "_" +
                  std::to_string(::getpid()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // Two systems, a tp search (tp=12 pruned on both 8-GPU nodes: 12 devices do not fill whole systems),
  // 3 levels, one speed target and one SLO tier.
  std::string experiment() {
    const fs::path p = dir / "sweep.yaml";
    std::ofstream(p) << "name: sweep\nseed: 3\nmodel: llama-3.1-70b\nsystems: [hgx-h200, hgx-b200]\n"
                        "search: {tp: [8, 12]}\n"
                        "serving: {step_overhead: \"2ms\", efficiency: {compute: 0.7, memory: 0.8, network: 0.8}}\n"
                        "readoffs: {agent_speeds: [40]}\nslo: {tiers: [45], ttft: \"5s\"}\n"
                        "workload:\n  trace: " + kRoot + "/workloads/traces/claude-code-sample/requests.csv\n"
                        "  concurrency: [1, 8, 32]\n  warmup: \"10s\"\n  window: \"40s\"\n  start_spread: \"5s\"\n";
    return p.string();
  }
  void expect_same_outputs(const fs::path& a, const fs::path& b) {
    for (const char* f : kOutputs) {
      const std::string x = slurp(a / f);
      EXPECT_FALSE(x.empty()) << f;
      EXPECT_TRUE(x == slurp(b / f)) << f << " differs between " << a << " and " << b;
    }
  }
};

TEST_F(SweepCli, OutputsHaveTheContractSchema) {
  const Result r = agentsim("run " + experiment() + " -j 2 --out " + (dir / "o").string());
  ASSERT_EQ(r.code, 0) << r.output;
  const std::string csv = slurp(dir / "o" / "summary.csv");
  EXPECT_EQ(csv.rfind(
                "system,deployment,concurrency,output_tok_s,total_tok_s,power_w,output_tok_s_per_mw,total_tok_s_per_mw,"
            "agents_per_mw,agent_output_tok_s_p50,agent_output_tok_s_p10,ttft_s_p50,ttft_s_p90,cache_hit_rate,"
                "input_tok_s,",
                0),
            0u)
      << csv.substr(0, csv.find('\n'));
  EXPECT_NE(csv.find("\nhgx-b200,1x(tp=8) on 8 GPUs,32,"), std::string::npos) << csv;
  const std::string ro = slurp(dir / "o" / "readoffs.csv");
  EXPECT_EQ(ro.substr(0, ro.find('\n')),
            "system,deployment,target_kind,target_agent_tok_s,total_tok_s_per_mw,output_tok_s_per_mw,agents_per_mw,"
            "in_swept_range,concurrency,note,runner_up,band_regime,total_tok_s_per_mw_lo,total_tok_s_per_mw_hi,"
            "agent_tok_s_lo,agent_tok_s_hi");
  // One row per system and target: 2 systems x (1 speed + 1 SLO tier + single-agent speed).
  EXPECT_EQ(std::count(ro.begin(), ro.end(), '\n'), 7) << ro;
  EXPECT_NE(ro.find("hgx-h200,1x(tp=8) on 8 GPUs,single_agent,"), std::string::npos) << ro;
  EXPECT_NE(ro.find("hgx-h200,1x(tp=8) on 8 GPUs,speed,40,"), std::string::npos) << ro;
  EXPECT_NE(ro.find("hgx-h200,1x(tp=8) on 8 GPUs,slo,45,"), std::string::npos) << ro;
  EXPECT_NE(r.output.find("read-offs"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("pruned hgx-h200 "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("(tp=12) on 8 GPUs: deployment:"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "o" / ".partial")) << "the resume cache is removed after a complete sweep";

  H5::H5File f((dir / "o" / "results.h5").string(), H5F_ACC_RDONLY);
  for (const char* attr : {"format", "config_yaml", "source_revision", "experiment", "model"}) {
    EXPECT_TRUE(f.attrExists(attr)) << attr;
  }
  for (const char* ds : {"runs", "readoffs", "plan_readoffs", "plans", "requests/0000", "steps/0000", "curves/0000"}) {
    EXPECT_TRUE(f.nameExists(ds)) << ds;
  }
  H5::DataSet runs = f.openDataSet("runs");
  hsize_t n = 0;
  runs.getSpace().getSimpleExtentDims(&n);
  const std::size_t csv_rows = static_cast<std::size_t>(std::count(csv.begin(), csv.end(), '\n')) - 1;
  EXPECT_EQ(n, csv_rows) << "one /runs row per summary.csv row";
  EXPECT_GE(n, 6u) << "2 systems x 3 levels, plus any bisection runs";
  EXPECT_GE(runs.getCompType().getMemberIndex("power_w"), 0);
  H5::DataSet steps = f.openDataSet("steps/0000");
  hsize_t steps_n = 0;
  steps.getSpace().getSimpleExtentDims(&steps_n);
  EXPECT_GT(steps_n, 0u);
}

TEST_F(SweepCli, InterruptedSweepResumesToTheSameOutputs) {
  const std::string e = experiment();
  ASSERT_EQ(agentsim("run " + e + " -j 2 --out " + (dir / "full").string()).code, 0);
  const Result stop = agentsim("run " + e + " -j 1 --stop-after 2 --out " + (dir / "r").string());
  EXPECT_EQ(stop.code, 3) << stop.output;
  EXPECT_FALSE(fs::exists(dir / "r" / "summary.csv")) << "an interrupted sweep writes no outputs";
  std::size_t kept = 0;
  for (const auto& entry : fs::directory_iterator(dir / "r" / ".partial")) kept += entry.path().extension() == ".run";
  EXPECT_EQ(kept, 2u);
  const Result resumed = agentsim("run " + e + " -j 2 --resume --out " + (dir / "r").string());
  ASSERT_EQ(resumed.code, 0) << resumed.output;
  EXPECT_NE(resumed.output.find("2 reused"), std::string::npos) << resumed.output;
  expect_same_outputs(dir / "full", dir / "r");
}

TEST_F(SweepCli, DescribeAndPlan) {
  const Result d = agentsim("describe slo");
  ASSERT_EQ(d.code, 0) << d.output;
  EXPECT_NE(d.output.find("ttft_percentile"), std::string::npos) << d.output;
  const Result bad = agentsim("describe worklaod");
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.output.find("did you mean 'workload'"), std::string::npos) << bad.output;
  const Result p = agentsim("plan --model llama-3.1-70b --agents 1000 --agent-speed 20 --ttft-p90 30s "
                            "--systems hgx-h200 --max-agents-per-replica 16 -j 2 --experiment " + experiment());
  ASSERT_EQ(p.code, 0) << p.output;
  EXPECT_NE(p.output.find("hgx-h200     1x(tp=8) on 8 GPUs"), std::string::npos) << p.output;
}

}  // namespace
