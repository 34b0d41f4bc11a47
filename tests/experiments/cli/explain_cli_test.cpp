// `agentsim explain` prints a step's breakdown as JSON and rejects a plan the system
// cannot hold (moved from tests/sim/serving/step_cost_plan_test.cpp: it runs the binary).
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "tests/support/cli_runner.hpp"

namespace agentsim::exp {
namespace {

using test_support::run;

// `explain <args> --json`, expected to succeed, parsed.
nlohmann::json explain_json(const std::string& args) {
  const auto [code, out] = run("explain " + args + " --json");
  EXPECT_EQ(code, 0) << args << "\n" << out;
  return code == 0 ? nlohmann::json::parse(out) : nlohmann::json::object();
}

TEST(ExplainCli, PrintsTheBreakdownAndRejectsBadPlans) {
  const std::string j =
      explain_json("--model deepseek-r1 --system hgx-h200 --plan tp=8,ep=8 --batch decode=64@32768,prefill=1x4096@0")
          .dump(2);
  for (const char* key : {"\"routed_experts\"", "\"all_to_all_dispatch\"", "\"causes\"", "\"e_compute\"", "\"total_s\""}) {
    EXPECT_NE(j.find(key), std::string::npos) << key;
  }
  const auto [code, err] = run("explain --model deepseek-r1 --system hgx-h200 --plan tp=16 --batch decode=1@10");
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("needs 16 devices but the system has 8"), std::string::npos) << err;
}

// Decode replays from CUDA graphs by default with the engine's host-time model (as the catalog's
// engines run it) and eagerly with --step-overhead; --cuda-graph and --eager override, and
// together they are refused (exit 2).
TEST(ExplainCli, CudaGraphFollowsTheHostTimeModelUnlessAFlagSaysOtherwise) {
  auto graph = [](const std::string& flags) {
    const nlohmann::json j =
        explain_json("--model deepseek-r1 --system hgx-h200 --plan tp=8 --batch decode=4@1024 " + flags);
    return j.contains("cuda_graph") ? (j["cuda_graph"].get<bool>() ? 1 : 0) : -1;
  };
  EXPECT_EQ(graph("--engine sglang"), 1);
  EXPECT_EQ(graph("--engine sglang --eager"), 0);
  EXPECT_EQ(graph("--step-overhead 2ms"), 0);
  EXPECT_EQ(graph("--step-overhead 2ms --cuda-graph"), 1);
  EXPECT_EQ(run("explain --model deepseek-r1 --system hgx-h200 --cuda-graph --eager").code, 2);
}

// --weights / --kv-cache replace the model card's formats for the step, as a run's what_if would:
// Llama-3.1-70B's card is BF16 without block scales, so FP4 weights are a quarter of the bytes,
// FP8 KV half.
TEST(ExplainCli, PrecisionFlagsReplaceTheCardsFormats) {
  const std::string base = "--model llama-3.1-70b --system hgx-b200 --plan tp=1 --batch decode=8@4096 ";
  const auto op = [](const nlohmann::json& j, const std::string& name) {
    for (const auto& o : j.at("ops")) {
      if (o.at("op") == name) return o;
    }
    ADD_FAILURE() << "no op " << name;
    return nlohmann::json{};
  };
  const nlohmann::json card = explain_json(base);
  const nlohmann::json fp4 = explain_json(base + "--weights fp4 --kv-cache fp8");
  EXPECT_EQ(card.at("precision").at("weights"), "bf16");
  EXPECT_EQ(fp4.at("precision").at("weights"), "fp4");
  EXPECT_EQ(fp4.at("precision").at("kv_cache"), "fp8");
  EXPECT_EQ(op(fp4, "dense_ffn").at("dtype"), "fp4");
  EXPECT_NEAR(op(fp4, "dense_ffn").at("weight_bytes").get<double>() / op(card, "dense_ffn").at("weight_bytes").get<double>(),
              0.25, 0.01);
  EXPECT_NEAR(op(fp4, "attn_core").at("kv_bytes").get<double>() / op(card, "attn_core").at("kv_bytes").get<double>(), 0.5,
              0.01);
  const auto [code, err] = run("explain --model llama-3.1-70b --system hgx-b200 --weights fp5");
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("--weights: unknown dtype 'fp5'"), std::string::npos) << err;
}

}  // namespace
}  // namespace agentsim::exp
