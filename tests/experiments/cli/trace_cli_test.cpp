// agentsim trace import|stats|fit end to end: exit codes, output files, the
// HDF5 form, --skip-bad counts and the exact message for a malformed line.
#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace {
namespace fs = std::filesystem;

const std::string kSamples = std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces";

using Result = agentsim::test_support::CliResult;
using agentsim::test_support::run;
class TraceCli : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_trace_cli_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // Header, a good session, a session whose first turn has "in": "many", another good one.
  std::string malformed() {
    const fs::path p = dir / "bad.jsonl";
    std::ofstream(p) << R"({"format": "agentsim-trace", "version": 1, "name": "bad", "block_size": 0})" "\n"
                     << R"({"id": "a", "turns": [{"in": 100, "out": 5}]})" "\n"
                     << R"({"id": "b", "turns": [{"in": "many", "out": 5}]})" "\n"
                     << R"({"id": "c", "turns": [{"in": 200, "out": 7}, {"in": 300, "out": 1}]})" "\n";
    return p.string();
  }
};

TEST_F(TraceCli, ImportToJsonlAndHdf5ThenStatsAndFitReadBoth) {
  const std::string in = kSamples + "/mooncake-sample/conversation_trace_head300.jsonl";
  const std::string jsonl = (dir / "m.jsonl").string();
  const std::string h5 = (dir / "m.h5").string();
  Result r = run("trace import mooncake " + in + " --out " + jsonl);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "wrote " + jsonl + ": 300 sessions, 300 turns (0 skipped)\n");
  r = run("trace import mooncake " + in + " --out " + h5);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "wrote " + h5 + ": 300 sessions, 300 turns (0 skipped)\n");
  // Stats of the source, the JSONL and the HDF5 form agree line for line after the name.
  const Result s_in = run("trace stats " + in + " --json");
  const Result s_jsonl = run("trace stats " + jsonl + " --json");
  const Result s_h5 = run("trace stats " + h5 + " --json");
  ASSERT_EQ(s_h5.code, 0) << s_h5.output;
  EXPECT_EQ(s_in.output, s_jsonl.output);
  EXPECT_EQ(s_in.output, s_h5.output);
  EXPECT_NE(s_h5.output.find("\"turns\": 300"), std::string::npos) << s_h5.output;
  const std::string gen = (dir / "gen.yaml").string();
  r = run("trace fit " + h5 + " --out " + gen);
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "wrote " + gen + "\n");
  EXPECT_TRUE(fs::is_regular_file(gen));
}

TEST_F(TraceCli, BadLineIsAnErrorNamingFileLineAndFieldAndWritesNothing) {
  const std::string bad = malformed();
  const std::string out = (dir / "out.jsonl").string();
  const Result r = run("trace import agentsim " + bad + " --out " + out);
  EXPECT_EQ(r.code, 2);
  // "in" is a string; the reader names the token counts it accepts.
  EXPECT_EQ(r.output, "agentsim: error: " + bad + ":3: turns[0].in: expected an integer in [1, 1000000000], found \"many\"\n");
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(run("trace stats " + bad).code, 2);
}

TEST_F(TraceCli, SkipBadSkipsAndCountsMalformedLines) {
  const std::string bad = malformed();
  const std::string out = (dir / "out.h5").string();
  const Result r = run("trace import agentsim " + bad + " --out " + out + " --skip-bad");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_EQ(r.output, "agentsim: skipped 1 malformed line(s); first: " + bad + ":3: turns[0].in: expected an integer in [1, 1000000000], found \"many\"\n" +
                          "wrote " + out + ": 2 sessions, 3 turns (1 skipped)\n");
  const Result s = run("trace stats " + out + " --json");
  ASSERT_EQ(s.code, 0) << s.output;
  EXPECT_NE(s.output.find("\"turns\": 3"), std::string::npos) << s.output;
}

TEST_F(TraceCli, UsageErrorsAndMissingFiles) {
  EXPECT_NE(run("trace import mooncake").code, 0) << "missing IN and --out";
  const Result r = run("trace stats " + (dir / "nope.jsonl").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.output.find("nope.jsonl"), std::string::npos) << r.output;
  const Result f = run("trace import nosuch " + kSamples + "/azure-sample/code_head300.csv --out " +
                       (dir / "x.jsonl").string());
  EXPECT_EQ(f.code, 2);
  EXPECT_NE(f.output.find("unknown trace format 'nosuch'"), std::string::npos) << f.output;
}

}  // namespace
