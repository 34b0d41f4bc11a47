// Which kernel implementation an engine runs (experiments/catalog/kernel_implementations.yaml):
// per architecture, with the engine's per_tensor_fp8 choices where FP8 weights carry one scale per
// tensor and its ep_across_systems choices where the plan's expert-parallel group spans systems; a
// bad file is an error naming file, line and key.
#include "experiments/run/kernel_selection.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "experiments/config/experiment.hpp"
#include "experiments/run/profile_efficiency.hpp"
#include "experiments/run/resolve_run.hpp"
#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "tests/experiments/run/catalog_fixture.hpp"
#include "tests/support/source_root.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

const hw::Accelerator& h100() { return test::repo_catalog().accelerators.get("h100-sxm"); }

TEST(KernelSelection, SglangRunsDeepGemmExpertsOnlyWhereItsExpertParallelGroupSpansSystems) {
  const KernelSelection one = kernel_selection(AGENTSIM_SOURCE_DIR, "sglang", h100());
  const KernelSelection across = kernel_selection(AGENTSIM_SOURCE_DIR, "sglang", h100(), true);
  EXPECT_EQ(one.at("grouped_gemm_fp8"), "triton-fused-moe");
  EXPECT_EQ(across.at("grouped_gemm_fp8"), "deepgemm");
  // The other ops keep the engine's choice for the architecture.
  EXPECT_EQ(across.at("gemm_fp8"), one.at("gemm_fp8"));
  EXPECT_EQ(across.at("attention_prefill"), one.at("attention_prefill"));
  // An engine without overrides selects alike either way.
  EXPECT_EQ(kernel_selection(AGENTSIM_SOURCE_DIR, "vllm", h100(), true),
            kernel_selection(AGENTSIM_SOURCE_DIR, "vllm", h100()));
  // Blackwell has no override: the same selection.
  const hw::Accelerator& b200 = test::repo_catalog().accelerators.get("b200");
  EXPECT_EQ(kernel_selection(AGENTSIM_SOURCE_DIR, "sglang", b200, true),
            kernel_selection(AGENTSIM_SOURCE_DIR, "sglang", b200));
}

// AMD's ATOM runs aiter's kernels for every weight GEMM on CDNA 3 and 4, as SGLang does there
// (SGLANG_USE_AITER=1 in the recipes), and selects nothing on an architecture it does not run on.
TEST(KernelSelection, AtomRunsAitersGemmsOnInstinct) {
  const hw::Accelerator& mi355x = test::repo_catalog().accelerators.get("mi355x");
  const KernelSelection atom = kernel_selection(AGENTSIM_SOURCE_DIR, "atom", mi355x);
  for (const char* table : {"gemm_fp8", "gemm_fp4", "grouped_gemm_fp8", "grouped_gemm_fp4"}) {
    ASSERT_TRUE(atom.count(table)) << table;
    EXPECT_EQ(atom.at(table), "aiter") << table;
  }
  EXPECT_EQ(atom, kernel_selection(AGENTSIM_SOURCE_DIR, "sglang", mi355x));
  EXPECT_TRUE(kernel_selection(AGENTSIM_SOURCE_DIR, "atom", h100()).empty());
}

// DeepSeek-R1's FP8 expert GEMMs (w13, n 4096, k 7168): `groups` experts of `m` tokens each.
serving::KernelShape expert_gemm(double m, double groups) {
  serving::KernelShape ks;
  ks.kind = serving::KernelKind::kGroupedGemm;
  ks.dtype = hw::DType::kFp8;
  ks.m = m;
  ks.n = 4096;
  ks.k = 7168;
  ks.groups = groups;
  ks.weight_bytes = groups * 3.0 * 7168 * 2048;
  return ks;
}

TEST(KernelSelection, TheExpertGemmIsPricedFromTheSelectedImplementationsTable) {
  const serving::KernelShape ks = expert_gemm(2048, 8);
  const auto one = load_profile_efficiency(h100(), AGENTSIM_SOURCE_DIR, {}, "sglang");
  const auto across = load_profile_efficiency(h100(), AGENTSIM_SOURCE_DIR, {}, "sglang", true);
  ASSERT_TRUE(one && across);
  EXPECT_NE(one->compute(ks).note.find("grouped_gemm_fp8@triton-fused-moe"), std::string::npos) << one->compute(ks).note;
  EXPECT_NE(across->compute(ks).note.find("grouped_gemm_fp8@deepgemm"), std::string::npos) << across->compute(ks).note;
  EXPECT_NE(one->compute(ks).value, across->compute(ks).value);
}

// TensorRT-LLM's default MoE runner on Hopper (CUTLASS, which no table measures) is priced from the
// measured kernel of its class, SGLang's Triton fused MoE: at DeepSeek-R1's TP 8 expert slices the two
// engines' expert GEMMs cost alike on H200, and DeepGEMM stays a choice (serving.kernels) that prices
// otherwise.
TEST(KernelSelection, TensorRtLlmsHopperMoeIsPricedFromTheTritonFusedMoe) {
  const hw::Accelerator& h200 = test::repo_catalog().accelerators.get("h200");
  serving::KernelShape ks = expert_gemm(4, 32);
  ks.n = 768;  // the measured calls' output widths per expert: gate/up and down of 2,048 over TP 8
  ks.weight_bytes = 32 * 3.0 * 7168 * 256;
  const auto trtllm = load_profile_efficiency(h200, AGENTSIM_SOURCE_DIR, {}, "trtllm");
  const auto sglang = load_profile_efficiency(h200, AGENTSIM_SOURCE_DIR, {}, "sglang");
  const auto deepgemm = load_profile_efficiency(h200, AGENTSIM_SOURCE_DIR, {}, "trtllm", false, {},
                                                {{"grouped_gemm_fp8", "deepgemm"}});
  ASSERT_TRUE(trtllm && sglang && deepgemm);
  EXPECT_EQ(trtllm->memory(ks).note.rfind("grouped_gemm_fp8@triton-fused-moe table (measured)", 0), 0u) << trtllm->memory(ks).note;
  EXPECT_EQ(trtllm->memory(ks).value, sglang->memory(ks).value);
  EXPECT_EQ(trtllm->compute(ks).value, sglang->compute(ks).value);
  EXPECT_NE(deepgemm->memory(ks).value, trtllm->memory(ks).value);
}

// The compute-bound headline (a decode row in TFLOPS only, no batch) attention.csv gives for
// `family`'s dense-MLA decode kernel `kernel`, in FLOP/s.
double mla_headline_flops(const std::string& family, const std::string& kernel) {
  std::ifstream in(std::string(AGENTSIM_SOURCE_DIR) + "/calibration/data/published/kernels/attention.csv");
  core::CsvReader r(in, "attention.csv");
  while (r.next()) {
    if (r.field(r.column("gpu_family")) == family && r.field(r.column("phase")) == "decode" &&
        r.field(r.column("batch")).empty() && r.field(r.column("achieved_GBps")).empty() &&
        r.field(r.column("kernel")).find(kernel) != std::string::npos &&
        r.field(r.column("kernel")).find("sparse") == std::string::npos)
      return r.number(r.column("achieved_tflops")) * 1e12;
  }
  return 0;
}

// Dense-MLA decode math on an attention-DP rank (all 128 of DeepSeek-R1's query heads) is priced
// from the kernel each engine runs: TRTLLM-gen's MLA decode on SM100 (TensorRT-LLM's own, SGLang's
// trtllm_mla, vLLM's FLASHINFER_MLA) at its measured headline over B200's BF16 peak, and FlashMLA
// on Hopper at its H800 headline over the die's; never one kernel's rate for the other's die.
TEST(KernelSelection, MlaDecodeMathIsPricedFromTheKernelEachEngineRunsOnItsArchitecture) {
  serving::KernelShape ks;
  ks.kind = serving::KernelKind::kAttentionDecode;
  ks.batch = 512;
  ks.context = 4096;
  ks.query_heads = 512 * 128;
  const hw::Accelerator& b200 = test::repo_catalog().accelerators.get("b200");
  const double trtllm_gen = mla_headline_flops("B200", "trtllm-gen MLA decode");
  const double flashmla = mla_headline_flops("H800", "FlashMLA dense decode");
  ASSERT_GT(trtllm_gen, 0);
  ASSERT_GT(flashmla, 0);
  const double b200_bf16 = b200.peak_flops.at(hw::DType::kBf16), h100_bf16 = h100().peak_flops.at(hw::DType::kBf16);
  for (const char* engine : {"vllm", "sglang", "trtllm"}) {
    EXPECT_EQ(kernel_selection(AGENTSIM_SOURCE_DIR, engine, b200).at("attention_decode_compute"), "flashinfer-trtllm-gen")
        << engine;
    const auto sm100 = load_profile_efficiency(b200, AGENTSIM_SOURCE_DIR, {}, engine);
    ASSERT_TRUE(sm100) << engine;
    const serving::EfficiencyValue e = sm100->compute(ks);
    EXPECT_NE(e.note.find("attention_decode_compute@flashinfer-trtllm-gen"), std::string::npos) << e.note;
    EXPECT_NEAR(e.value, trtllm_gen / b200_bf16, 1e-9) << engine;
    const auto hopper = load_profile_efficiency(h100(), AGENTSIM_SOURCE_DIR, {}, engine);
    ASSERT_TRUE(hopper) << engine;
    EXPECT_NEAR(hopper->compute(ks).value, flashmla / h100_bf16, 1e-9) << engine;
  }
  // FlashMLA's table on B200 (a serving.kernels override) is the H800 kernel's fraction, not SM100's.
  const auto forced = load_profile_efficiency(b200, AGENTSIM_SOURCE_DIR, {}, "trtllm", false, {},
                                              {{"attention_decode_compute", "flashmla"}});
  ASSERT_TRUE(forced);
  EXPECT_NEAR(forced->compute(ks).value, flashmla / h100_bf16, 1e-9);
  EXPECT_EQ(kernel_selection(AGENTSIM_SOURCE_DIR, "trtllm", h100()).at("attention_decode_compute"), "flashmla");
}

// serving.kernels replaces the engine's implementation of an op table in every replica the
// experiment resolves (as TensorRT-LLM's moe_config.backend does); a table or implementation the
// catalog does not know, or one of another vendor than the system's, names file, line and key.
Experiment parse_kernels(const std::string& system, const std::string& kernels,
                         const std::string& model = "deepseek-r1", const std::string& deployment = "{tp: 8, ep: 8}") {
  return parse_experiment("name: kernels\n"
                          "model: " + model + "\n"
                          "system: " + system + "\n"
                          "deployment: " + deployment + "\n"
                          "serving:\n"
                          "  engine: trtllm\n" + kernels +
                          "workload:\n"
                          "  trace: " + test_support::kTrace + "\n"
                          "  concurrency: [1]\n"
                          "  warmup: \"1s\"\n"
                          "  window: \"10s\"\n",
                          test_support::kRoot + "/kernels.yaml", test_support::kRoot);
}

std::string parse_error(const std::string& system, const std::string& kernels) {
  try {
    const Experiment e = parse_kernels(system, kernels);
    resolve_run(e, first_valid_plan(e));
  } catch (const core::Error& err) {
    return err.what();
  }
  return "";
}

TEST(KernelSelection, ServingKernelsReplaceTheEnginesChoice) {
  serving::KernelShape ks = expert_gemm(4, 32);
  const auto kernels = [&](const Experiment& e) { return resolve_run(e, first_valid_plan(e)).replica.cost.kernels; };
  const auto engine = kernels(parse_kernels("hgx-b200", ""));
  const auto deepgemm = kernels(parse_kernels("hgx-b200", "  kernels: {grouped_gemm_fp8: deepgemm}\n"));
  ASSERT_TRUE(engine && deepgemm);
  EXPECT_EQ(engine->memory(ks).note.rfind("grouped_gemm_fp8@flashinfer-trtllm-gen", 0), 0u) << engine->memory(ks).note;
  EXPECT_EQ(deepgemm->memory(ks).note.rfind("grouped_gemm_fp8@deepgemm", 0), 0u) << deepgemm->memory(ks).note;
  EXPECT_NE(engine->memory(ks).value, deepgemm->memory(ks).value);
  // The dense GEMMs keep the engine's choice.
  ks.kind = serving::KernelKind::kGemm;
  EXPECT_EQ(engine->compute(ks).note, deepgemm->compute(ks).note);

  const std::string table = parse_error("hgx-b200", "  kernels: {grouped_gem: deepgemm}\n");
  EXPECT_NE(table.find("kernels.yaml:7: serving.kernels.grouped_gem: 'grouped_gem' is not an op table"), std::string::npos)
      << table;
  const std::string id = parse_error("hgx-b200", "  kernels:\n    grouped_gemm_fp8: deepgem\n");
  EXPECT_NE(id.find("kernels.yaml:8: serving.kernels.grouped_gemm_fp8: unknown implementation 'deepgem'"), std::string::npos)
      << id;
  const std::string vendor = parse_error("hgx-b200", "  kernels:\n    grouped_gemm_fp8: aiter\n");
  EXPECT_NE(vendor.find("kernels.yaml:8: serving.kernels.grouped_gemm_fp8: implementation 'aiter' runs on amd parts, not on b200"),
            std::string::npos)
      << vendor;
  EXPECT_EQ(parse_error("mi355x-8", "  kernels:\n    grouped_gemm_fp8: aiter\n"), "");
  // Constant efficiencies read no table: a kernel choice beside them is refused, not ignored.
  const std::string constants =
      parse_error("hgx-b200", "  efficiency: {compute: 0.7, memory: 0.8}\n  kernels:\n    grouped_gemm_fp8: deepgemm\n");
  EXPECT_NE(constants.find("kernels.yaml:9: serving.kernels.grouped_gemm_fp8: a kernel implementation (grouped_gemm_fp8: "
                           "deepgemm) prices nothing with serving.efficiency"),
            std::string::npos)
      << constants;
}

// FP8 weights with one scale per tensor (Llama 3.1 in FP8) run no block-scaled kernel: on Hopper the
// engines' per-tensor FP8 GEMM (cuBLASLt's for TensorRT-LLM) prices their dense GEMMs, while a
// block-scaled checkpoint (DeepSeek-R1's 128 x 128 tiles) keeps DeepGEMM; Blackwell has no override.
TEST(KernelSelection, PerTensorFp8WeightsRunTheEnginesPerTensorGemm) {
  // Which tables a run's formats name: FP8 without block scales only.
  EXPECT_EQ(per_tensor_fp8({hw::DType::kFp8, 0}, {hw::DType::kFp8, 128}), PerTensorFp8{"gemm_fp8"});
  EXPECT_EQ(per_tensor_fp8({hw::DType::kBf16, 0}, {hw::DType::kFp8, 0}), PerTensorFp8{"grouped_gemm_fp8"});
  EXPECT_TRUE(per_tensor_fp8({hw::DType::kFp8, 128}, {hw::DType::kFp4, 32}).empty());
  for (const char* engine : {"vllm", "sglang", "trtllm"}) {
    const KernelSelection block = kernel_selection(AGENTSIM_SOURCE_DIR, engine, h100());
    const KernelSelection tensor = kernel_selection(AGENTSIM_SOURCE_DIR, engine, h100(), false, {"gemm_fp8"});
    EXPECT_EQ(block.at("gemm_fp8"), "deepgemm") << engine;
    EXPECT_EQ(tensor.at("gemm_fp8"), "cublas") << engine;
    EXPECT_EQ(tensor.at("grouped_gemm_fp8"), block.at("grouped_gemm_fp8")) << engine;
    // Only the tables whose weights carry per-tensor scales are overridden.
    EXPECT_EQ(kernel_selection(AGENTSIM_SOURCE_DIR, engine, h100(), false, {"grouped_gemm_fp8"}), block) << engine;
    const hw::Accelerator& b200 = test::repo_catalog().accelerators.get("b200");
    EXPECT_EQ(kernel_selection(AGENTSIM_SOURCE_DIR, engine, b200, false, {"gemm_fp8"}),
              kernel_selection(AGENTSIM_SOURCE_DIR, engine, b200))
        << engine;
  }
  // Resolved from the model's formats: Llama 3.1 70B's weights in FP8 without block scales (an MLPerf
  // submission's precision over the BF16 card) against DeepSeek-R1's block-scaled card.
  auto dense_gemm_note = [](const std::string& model, bool fp8_per_tensor) {
    Experiment e = parse_kernels("hgx-h200", "", model, "{tp: 8}");
    if (fp8_per_tensor) e.model.precision.override_formats("fp8", "", "", false);
    const auto kernels = resolve_run(e, first_valid_plan(e)).replica.cost.kernels;
    const serving::KernelShape ks{.kind = serving::KernelKind::kGemm, .dtype = hw::DType::kFp8, .m = 256, .n = 7168, .k = 8192};
    return kernels ? kernels->compute(ks).note : std::string("no profile");
  };
  EXPECT_EQ(dense_gemm_note("llama-3.1-70b", true).rfind("gemm_fp8@cublas table", 0), 0u) << dense_gemm_note("llama-3.1-70b", true);
  EXPECT_EQ(dense_gemm_note("deepseek-r1", false).rfind("gemm_fp8@deepgemm table", 0), 0u) << dense_gemm_note("deepseek-r1", false);
}

class KernelSelectionFile : public ::testing::Test {
 protected:
  fs::path path = fs::temp_directory_path() / ("agentsim_kernel_selection_" + std::to_string(::getpid()) + ".yaml");
  void TearDown() override { fs::remove(path); }
  std::string error_of(const std::string& text) {
    std::ofstream(path) << text;
    try {
      load_kernel_selections(path.string());
    } catch (const core::Error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(KernelSelectionFile, OverridesAreReadAndBadOnesNameFileLineAndKey) {
  std::ofstream(path) << "engines:\n  sglang:\n    hopper:\n      grouped_gemm_fp8: triton-fused-moe\n"
                         "    ep_across_systems:\n      hopper:\n        grouped_gemm_fp8: deepgemm\n";
  const auto sel = load_kernel_selections(path.string());
  EXPECT_EQ(sel.at("sglang").by_architecture.at("hopper").at("grouped_gemm_fp8"), "triton-fused-moe");
  EXPECT_EQ(sel.at("sglang").ep_across_systems.at("hopper").at("grouped_gemm_fp8"), "deepgemm");

  const std::string arch = error_of("engines:\n  sglang:\n    ep_across_systems:\n      hoper:\n        gemm_fp8: deepgemm\n");
  EXPECT_NE(arch.find(path.filename().string() + ":5: engines.sglang.ep_across_systems.hoper: unknown architecture"),
            std::string::npos)
      << arch;
  EXPECT_EQ(arch.find("hopper, ep_across_systems"), std::string::npos) << "not itself an architecture: " << arch;
  const std::string vendor =
      error_of("engines:\n  sglang:\n    ep_across_systems:\n      cdna3:\n        grouped_gemm_fp8: deepgemm\n");
  EXPECT_NE(vendor.find("runs on nvidia parts"), std::string::npos) << vendor;
  EXPECT_NE(vendor.find(":5: engines.sglang.ep_across_systems.cdna3.grouped_gemm_fp8"), std::string::npos) << vendor;
  std::ofstream(path) << "engines:\n  trtllm:\n    per_tensor_fp8:\n      hopper:\n        gemm_fp8: cublas\n";
  EXPECT_EQ(load_kernel_selections(path.string()).at("trtllm").per_tensor_fp8.at("hopper").at("gemm_fp8"), "cublas");
  const std::string attention =
      error_of("engines:\n  trtllm:\n    per_tensor_fp8:\n      hopper:\n        attention_prefill: flash-attention-3\n");
  EXPECT_NE(attention.find(":5: engines.trtllm.per_tensor_fp8.hopper.attention_prefill: per_tensor_fp8 overrides FP8 weight GEMMs only"),
            std::string::npos)
      << attention;
  const std::string shape = error_of("engines:\n  sglang:\n    ep_across_systems: deepgemm\n");
  EXPECT_NE(shape.find("expected a mapping of accelerator architecture"), std::string::npos) << shape;
  EXPECT_NE(shape.find(":3: engines.sglang.ep_across_systems"), std::string::npos) << shape;
}

}  // namespace
}  // namespace agentsim::exp
