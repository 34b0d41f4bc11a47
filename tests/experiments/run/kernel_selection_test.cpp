// Which kernel implementation an engine runs (experiments/catalog/kernel_implementations.yaml):
// per architecture, with the engine's ep_across_systems choices where the plan's expert-parallel
// group spans systems; a bad file is an error naming file, line and key.
#include "experiments/run/kernel_selection.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "experiments/run/profile_efficiency.hpp"
#include "sim/core/error.hpp"
#include "tests/experiments/run/catalog_fixture.hpp"

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

TEST(KernelSelection, TheExpertGemmIsPricedFromTheSelectedImplementationsTable) {
  serving::KernelShape ks;
  ks.kind = serving::KernelKind::kGroupedGemm;
  ks.dtype = hw::DType::kFp8;
  ks.m = 2048;
  ks.n = 4096;
  ks.k = 7168;
  ks.groups = 8;
  ks.weight_bytes = 8 * 3.0 * 7168 * 2048;
  const auto one = load_profile_efficiency(h100(), AGENTSIM_SOURCE_DIR, {}, "sglang");
  const auto across = load_profile_efficiency(h100(), AGENTSIM_SOURCE_DIR, {}, "sglang", true);
  ASSERT_TRUE(one && across);
  EXPECT_NE(one->compute(ks).note.find("grouped_gemm_fp8@triton-fused-moe"), std::string::npos) << one->compute(ks).note;
  EXPECT_NE(across->compute(ks).note.find("grouped_gemm_fp8@deepgemm"), std::string::npos) << across->compute(ks).note;
  EXPECT_NE(one->compute(ks).value, across->compute(ks).value);
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
  const std::string shape = error_of("engines:\n  sglang:\n    ep_across_systems: deepgemm\n");
  EXPECT_NE(shape.find("expected a mapping of accelerator architecture"), std::string::npos) << shape;
  EXPECT_NE(shape.find(":3: engines.sglang.ep_across_systems"), std::string::npos) << shape;
}

}  // namespace
}  // namespace agentsim::exp
