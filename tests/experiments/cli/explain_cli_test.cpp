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
      explain_json("--model deepseek-r1 --system hgx-h200 --plan tp=1,dp=8,ep=8 --batch decode=64@32768,prefill=1x4096@0")
          .dump(2);
  for (const char* key : {"\"routed_experts\"", "\"all_to_all_dispatch\"", "\"causes\"", "\"e_compute\"", "\"total_s\""}) {
    EXPECT_NE(j.find(key), std::string::npos) << key;
  }
  // 12 devices do not fill whole 8-GPU systems (tp=16 spans two nodes and is valid).
  const auto [code, err] = run("explain --model deepseek-r1 --system hgx-h200 --plan tp=4,dp=3,ep=12 --batch decode=1@10");
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("needs 12 devices, more than the system's 8"), std::string::npos) << err;
}

// A wide-EP step in one rack stays on NVLink; a multi-node step's EP all-to-all and PP send/recv
// cross the NICs, with the catalog's bandwidth and latency, and the table says which.
TEST(ExplainCli, ShowsWhichCollectiveCrossesWhichLink) {
  const nlohmann::json wide =
      explain_json("--model deepseek-v4-pro --system gb300-nvl72 --plan dp=72,ep=72 --batch decode=256@8192");
  EXPECT_EQ(wide["systems"], 1);
  EXPECT_EQ(wide["experts"]["redundant"], 48);
  EXPECT_EQ(wide["experts"]["per_rank"], 6);
  ASSERT_EQ(wide["collective_groups"].size(), 1u);  // EP only (tp = 1, pp = 1)
  EXPECT_EQ(wide["collective_groups"][0]["group"], "ep");
  EXPECT_EQ(wide["collective_groups"][0]["off_system_peers"], 0);
  EXPECT_EQ(wide["collective_groups"][0]["scale_out_bw_Bps"], 0.0);

  const nlohmann::json two =
      explain_json("--model deepseek-v4-pro --system hgx-h100 --plan tp=8,dp=2,ep=16 --batch decode=64@8192");
  EXPECT_EQ(two["systems"], 2);
  for (const auto& g : two["collective_groups"]) {
    if (g["group"] == "tp") {
      EXPECT_EQ(g["systems"], 1) << g.dump();  // TP stays within a node
    }
    if (g["group"] == "ep") {
      EXPECT_EQ(g["systems"], 2);
      EXPECT_EQ(g["off_system_peers"], 8);
      EXPECT_DOUBLE_EQ(g["scale_out_bw_Bps"].get<double>(), 50e9);  // 400 Gb/s ConnectX-7
    }
  }
  const auto [code, text] =
      run("explain --model deepseek-v4-pro --system hgx-h100 --plan tp=8,ep=8,pp=2 --micro-batches 2 --batch "
          "decode=64@8192");
  ASSERT_EQ(code, 0) << text;
  EXPECT_NE(text.find("replica spans 2 systems of 8"), std::string::npos) << text;
  EXPECT_NE(text.find("bubble (pp - 1) / (micro + pp - 1) = 0.333"), std::string::npos) << text;
  EXPECT_NE(text.find("send/recv"), std::string::npos) << text;
  EXPECT_NE(text.find("NIC 50 GB/s, 5.00 us (1 of 1 peers off-system)"), std::string::npos) << text;
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

// --weights / --experts / --kv-cache replace the model card's formats for the step, each weight
// group with its format's own block scales: Llama-3.1-70B's card is BF16 without scales, so NVFP4
// weights are (0.5 + 1/16) / 2 of its bytes, FP8 KV half; DeepSeek-R1's FP8 experts in 128 x 128
// tiles become NVFP4 (a scale per 16) or MXFP4 (a scale per 32), and a bare fp4 cannot say which.
// --kernel TABLE=ID prices an op table from another implementation's table (serving.kernels), as
// an engine option does; a table or implementation the catalog does not know, or one of another
// vendor, is refused.
// SGLang across two HGX H100 nodes with attention DP: with DeepEP (the default) its experts run
// DeepGEMM behind an all-to-all; without an all-to-all backend (a2a=0) its default Triton fused MoE
// behind a two-level all-gather and reduce-scatter.
TEST(ExplainCli, TheExpertExchangeChoosesTheMoeRunnerAcrossSystems) {
  const std::string step = "--model deepseek-r1 --system hgx-h100 --batch decode=4@1536 --engine sglang --plan tp=1,ep=16,dp=16";
  const auto summary = [](const nlohmann::json& j) {
    std::string note, kinds;
    for (const auto& o : j.at("ops")) {
      if (o.at("op") == "routed_experts") note = o.at("note").get<std::string>();
    }
    for (const auto& c : j.at("collectives")) kinds += c.at("kind").get<std::string>() + "/" + c.at("algorithm").get<std::string>() + " ";
    return std::pair{note, kinds};
  };
  const auto [deepep_note, deepep_kinds] = summary(explain_json(step));
  const auto [gather_note, gather_kinds] = summary(explain_json(step + ",a2a=0"));
  EXPECT_EQ(deepep_note.rfind("grouped_gemm_fp8@deepgemm", 0), 0u) << deepep_note;
  EXPECT_NE(deepep_kinds.find("all_to_all_dispatch/direct"), std::string::npos) << deepep_kinds;
  EXPECT_EQ(gather_note.rfind("grouped_gemm_fp8@triton-fused-moe", 0), 0u) << gather_note;
  EXPECT_NE(gather_kinds.find("all_gather/hierarchical"), std::string::npos) << gather_kinds;
  EXPECT_NE(gather_kinds.find("reduce_scatter/hierarchical"), std::string::npos) << gather_kinds;
  EXPECT_EQ(gather_kinds.find("all_to_all"), std::string::npos) << gather_kinds;
}

TEST(ExplainCli, KernelFlagReplacesTheEnginesImplementation) {
  const std::string step = "--model deepseek-r1 --system hgx-b200 --plan tp=8,ep=8 --batch decode=32@1536 --engine trtllm ";
  const auto experts = [](const nlohmann::json& j) {
    for (const auto& o : j.at("ops")) {
      if (o.at("op") == "routed_experts") return o;
    }
    ADD_FAILURE() << "no routed_experts op";
    return nlohmann::json{};
  };
  const nlohmann::json engine = experts(explain_json(step));
  const nlohmann::json deepgemm = experts(explain_json(step + "--kernel grouped_gemm_fp8=deepgemm"));
  EXPECT_EQ(engine.at("note").get<std::string>().rfind("grouped_gemm_fp8@flashinfer-trtllm-gen table", 0), 0u) << engine.dump();
  EXPECT_EQ(deepgemm.at("note").get<std::string>().rfind("grouped_gemm_fp8@deepgemm", 0), 0u) << deepgemm.dump();
  EXPECT_EQ(deepgemm.at("weight_bytes"), engine.at("weight_bytes"));  // the same work, another kernel's efficiency
  EXPECT_NE(deepgemm.at("e_memory"), engine.at("e_memory"));
  for (const auto& [flag, message] : std::initializer_list<std::pair<std::string, std::string>>{
           {"grouped_gemm_fp8=aiter", "--kernel: implementation 'aiter' runs on amd parts, not on b200"},
           {"grouped_gem=deepgemm", "--kernel: 'grouped_gem' is not an op table"},
           {"grouped_gemm_fp8=deepgem", "--kernel: unknown implementation 'deepgem'"},
           {"grouped_gemm_fp8", "--kernel: expected TABLE=IMPLEMENTATION"},
           {"grouped_gemm_fp8=deepgemm --efficiency 0.7,0.8,0.8", "prices nothing with serving.efficiency"}}) {
    const auto [code, err] = run("explain " + step + "--kernel " + flag);
    EXPECT_EQ(code, 2) << flag;
    EXPECT_NE(err.find(message), std::string::npos) << flag << ": " << err;
  }
}

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
  const nlohmann::json fp4 = explain_json(base + "--weights nvfp4 --kv-cache fp8");
  EXPECT_EQ(card.at("precision").at("weights"), "bf16");
  EXPECT_EQ(fp4.at("precision").at("weights"), "nvfp4");
  EXPECT_EQ(fp4.at("precision").at("weights_block"), 16);
  EXPECT_EQ(fp4.at("precision").at("kv_cache"), "fp8");
  EXPECT_EQ(op(fp4, "dense_ffn").at("dtype"), "fp4");
  EXPECT_NEAR(op(fp4, "dense_ffn").at("weight_bytes").get<double>() / op(card, "dense_ffn").at("weight_bytes").get<double>(),
              (0.5 + 1.0 / 16) / 2, 0.001);
  EXPECT_NEAR(op(fp4, "attn_core").at("kv_bytes").get<double>() / op(card, "attn_core").at("kv_bytes").get<double>(), 0.5,
              0.01);
  const std::string r1 = "--model deepseek-r1 --system hgx-b200 --plan tp=8 --batch decode=8@4096 ";
  const nlohmann::json r1_card = explain_json(r1);
  const double fp8_tile = 1 + 4.0 / (128 * 128);
  for (const auto& [format, bytes] : {std::pair<std::string, double>{"nvfp4", 0.5 + 1.0 / 16}, {"mxfp4", 0.5 + 1.0 / 32}}) {
    const nlohmann::json j = explain_json(r1 + "--experts " + format);
    EXPECT_EQ(j.at("precision").at("experts"), format);
    EXPECT_EQ(j.at("precision").at("weights"), "fp8") << "attention keeps the card's format";
    EXPECT_EQ(j.at("precision").at("weights_block"), 128);
    EXPECT_NEAR(op(j, "routed_experts").at("weight_bytes").get<double>() /
                    op(r1_card, "routed_experts").at("weight_bytes").get<double>(),
                bytes / fp8_tile, 0.001)
        << format;
  }
  const auto [code, err] = run("explain --model llama-3.1-70b --system hgx-b200 --weights fp5");
  EXPECT_EQ(code, 2);
  EXPECT_NE(err.find("--weights: unknown format 'fp5'"), std::string::npos) << err;
  // The text names each group's format and its scales.
  const auto [text_code, text] = run("explain " + r1 + "--experts nvfp4 --kv-cache fp8");
  EXPECT_EQ(text_code, 0);
  EXPECT_NE(text.find("formats: weights fp8 (a 4-byte scale per 128 x 128 tile); experts nvfp4 (a 1-byte scale per "
                      "16); kv cache fp8"),
            std::string::npos)
      << text;
  const auto [bare, why] = run("explain " + r1 + "--experts fp4");
  EXPECT_EQ(bare, 2);
  EXPECT_NE(why.find("--experts: fp4 over fp8 weights"), std::string::npos) << why;
  EXPECT_NE(why.find("nvfp4"), std::string::npos) << why;
}

}  // namespace
}  // namespace agentsim::exp
