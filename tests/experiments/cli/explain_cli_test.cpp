// `agentsim explain` prints a step's breakdown as JSON and rejects a plan the system
// cannot hold (moved from tests/sim/serving/step_cost_plan_test.cpp: it runs the binary).
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

namespace agentsim::exp {
namespace {

TEST(ExplainCli, PrintsTheBreakdownAndRejectsBadPlans) {
  const std::string out = ::testing::TempDir() + "explain.json";
  const std::string cmd = std::string(AGENTSIM_BINARY) +
                          " explain --model deepseek-r1 --system hgx-h200 --plan tp=8,ep=8 "
                          "--batch decode=64@32768,prefill=1x4096@0 --json > " + out;
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string j = ss.str();
  for (const char* key : {"\"routed_experts\"", "\"all_to_all_dispatch\"", "\"causes\"", "\"e_compute\"", "\"total_s\""}) {
    EXPECT_NE(j.find(key), std::string::npos) << key;
  }
  const std::string err = ::testing::TempDir() + "explain.err";
  const std::string bad = std::string(AGENTSIM_BINARY) +
                          " explain --model deepseek-r1 --system hgx-h200 --plan tp=16 --batch decode=1@10 2> " + err;
  const int rc = std::system(bad.c_str());
  EXPECT_EQ(WEXITSTATUS(rc), 2);
  std::ifstream ein(err);
  std::stringstream es;
  es << ein.rdbuf();
  EXPECT_NE(es.str().find("needs 16 devices but the system has 8"), std::string::npos) << es.str();
}

// Decode replays from CUDA graphs by default with the engine's host-time model (as the catalog's
// engines run it) and eagerly with --step-overhead; --cuda-graph and --eager override, and
// together they are refused (exit 2).
TEST(ExplainCli, CudaGraphFollowsTheHostTimeModelUnlessAFlagSaysOtherwise) {
  const std::string out = ::testing::TempDir() + "explain_graph.json";
  auto graph = [&](const std::string& flags) {
    const std::string cmd = std::string(AGENTSIM_BINARY) +
                            " explain --model deepseek-r1 --system hgx-h200 --plan tp=8 --batch decode=4@1024 --json " +
                            flags + " > " + out;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(out);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string j = ss.str();
    if (j.find("\"cuda_graph\": true") != std::string::npos) return 1;
    if (j.find("\"cuda_graph\": false") != std::string::npos) return 0;
    return -1;
  };
  EXPECT_EQ(graph("--engine sglang"), 1);
  EXPECT_EQ(graph("--engine sglang --eager"), 0);
  EXPECT_EQ(graph("--step-overhead 2ms"), 0);
  EXPECT_EQ(graph("--step-overhead 2ms --cuda-graph"), 1);
  const std::string both = std::string(AGENTSIM_BINARY) +
                           " explain --model deepseek-r1 --system hgx-h200 --cuda-graph --eager 2> /dev/null";
  EXPECT_EQ(WEXITSTATUS(std::system(both.c_str())), 2);
}

}  // namespace
}  // namespace agentsim::exp
