// `agentsim explain` prints a step's breakdown as JSON and rejects a plan the system
// cannot hold (moved from tests/sim/serving/step_cost_plan_test.cpp: it runs the binary).
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

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

// --weights / --kv-cache replace the model card's formats for the step, as a run's what_if would:
// Llama-3.1-70B's card is BF16; FP4 weights are a quarter of the bytes, FP8 KV half.
TEST(ExplainCli, PrecisionFlagsReplaceTheCardsFormats) {
  const std::string out = ::testing::TempDir() + "explain_precision.json";
  auto run = [&](const std::string& flags) {
    const std::string cmd = std::string(AGENTSIM_BINARY) +
                            " explain --model llama-3.1-70b --system hgx-b200 --plan tp=1 --batch decode=8@4096 --json " +
                            flags + " > " + out;
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    std::ifstream in(out);
    return nlohmann::json::parse(in);
  };
  const auto op = [](const nlohmann::json& j, const std::string& name) {
    for (const auto& o : j.at("ops")) {
      if (o.at("op") == name) return o;
    }
    ADD_FAILURE() << "no op " << name;
    return nlohmann::json{};
  };
  const nlohmann::json card = run("");
  const nlohmann::json fp4 = run("--weights fp4 --kv-cache fp8");
  EXPECT_EQ(card.at("precision").at("weights"), "bf16");
  EXPECT_EQ(fp4.at("precision").at("weights"), "fp4");
  EXPECT_EQ(fp4.at("precision").at("kv_cache"), "fp8");
  EXPECT_EQ(op(fp4, "dense_ffn").at("dtype"), "fp4");
  EXPECT_NEAR(op(fp4, "dense_ffn").at("weight_bytes").get<double>() / op(card, "dense_ffn").at("weight_bytes").get<double>(),
              0.25, 0.01);
  EXPECT_NEAR(op(fp4, "attn_core").at("kv_bytes").get<double>() / op(card, "attn_core").at("kv_bytes").get<double>(), 0.5,
              0.01);
  const std::string err = ::testing::TempDir() + "explain_precision.err";
  const std::string bad = std::string(AGENTSIM_BINARY) +
                          " explain --model llama-3.1-70b --system hgx-b200 --weights fp5 2> " + err;
  EXPECT_EQ(WEXITSTATUS(std::system(bad.c_str())), 2);
  std::ifstream ein(err);
  std::stringstream es;
  es << ein.rdbuf();
  EXPECT_NE(es.str().find("--weights: unknown dtype 'fp5'"), std::string::npos) << es.str();
}

}  // namespace
}  // namespace agentsim::exp
