// Error bands: percentiles of CV errors per regime, the range they imply, the regime of an
// accelerator and a batch, and strict YAML.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "calibration/error_bands.hpp"
#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

TEST(ErrorBands, PercentilesOfTheRegimesErrorsAndTheRangeTheyImply) {
  // Ten errors -0.2, -0.1, 0.0, ..., 0.7: numpy-style 10th percentile -0.2 + 0.9 * 0.1 = -0.11,
  // 90th 0.6 + 0.1 * 0.1 = 0.61. A regime with fewer than 5 rows gets no band.
  std::vector<Residual> r;
  r.reserve(11);
  for (int i = 0; i < 10; ++i) r.push_back({"nvidia-fp8/latency", "output_tok_s_per_gpu", -0.2 + 0.1 * i});
  r.push_back({"amd-fp8/latency", "output_tok_s_per_gpu", 0.3});
  const ErrorBands b = fit_error_bands(r, 5, "hand");
  const Band* band = b.find("nvidia-fp8/latency", "output_tok_s_per_gpu");
  ASSERT_NE(band, nullptr);
  EXPECT_EQ(band->rows, 10);
  EXPECT_NEAR(band->err_p10, -0.11, 1e-12);
  EXPECT_NEAR(band->err_p90, 0.61, 1e-12);
  // A prediction of 161 tok/s that runs 61% high means 100 measured; 11% low means 180.9.
  EXPECT_NEAR(band->lo(161), 100, 1e-9);
  EXPECT_NEAR(band->hi(161), 161 / 0.89, 1e-9);
  EXPECT_EQ(b.find("amd-fp8/latency", "output_tok_s_per_gpu"), nullptr);
  EXPECT_EQ(b.find("nvidia-fp8/latency", "agent_output_tok_s"), nullptr);
}

TEST(ErrorBands, RegimeIsTheGenerationAndTheBatch) {
  hw::Accelerator h200;
  h200.vendor = "nvidia";
  h200.peak_flops = {{hw::DType::kBf16, 989e12}, {hw::DType::kFp8, 1979e12}};
  hw::Accelerator mi355x = h200;
  mi355x.vendor = "amd";
  mi355x.peak_flops[hw::DType::kFp4] = 9.2e15;
  hw::Accelerator a100 = h200;
  a100.peak_flops.erase(hw::DType::kFp8);
  EXPECT_EQ(accelerator_generation(h200), "nvidia-fp8");
  EXPECT_EQ(accelerator_generation(mi355x), "amd-fp4");
  EXPECT_EQ(accelerator_generation(a100), "nvidia-bf16");
  EXPECT_EQ(regime_name("nvidia-fp8", 16), "nvidia-fp8/latency");
  EXPECT_EQ(regime_name("nvidia-fp8", 16.5), "nvidia-fp8/throughput");
  EXPECT_EQ(format_regime_name("nvidia-fp4/throughput", hw::DType::kFp8, false), "nvidia-fp4/throughput/fp8-weights");
  EXPECT_EQ(format_regime_name("nvidia-fp4/throughput", hw::DType::kFp4, true), "nvidia-fp4/throughput/fp4-experts");
}

TEST(ErrorBands, YamlRoundTripAndStrictLoading) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "agentsim_error_bands_test";
  std::filesystem::create_directories(dir);
  std::vector<Residual> r;
  r.reserve(6);
  for (int i = 0; i < 6; ++i) r.push_back({"amd-fp4/throughput", "agent_output_tok_s", 0.05 * i - 0.1});
  const ErrorBands b = fit_error_bands(r, 5, "hand-made");
  const std::string good = (dir / "good.yaml").string();
  std::ofstream(good) << error_bands_yaml(b);
  const ErrorBands back = load_error_bands(good);
  EXPECT_EQ(back.provenance, "hand-made");
  const Band* x = back.find("amd-fp4/throughput", "agent_output_tok_s");
  ASSERT_NE(x, nullptr);
  EXPECT_EQ(x->rows, 6);
  EXPECT_DOUBLE_EQ(x->err_p10, b.find("amd-fp4/throughput", "agent_output_tok_s")->err_p10);
  EXPECT_DOUBLE_EQ(x->err_p90, b.find("amd-fp4/throughput", "agent_output_tok_s")->err_p90);

  const std::string bad = (dir / "bad.yaml").string();
  std::ofstream(bad) << "provenance: x\nthroughput_bound_sequences: 16\nregimes:\n  nvidia-fp8/latency:\n"
                        "    output_tok_s_per_gpu: {rows: 4, err_p10: 0.2, err_p90: 0.1}\n";
  try {
    load_error_bands(bad);
    FAIL() << "p90 below p10 must be refused";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where().file, bad);
    EXPECT_EQ(e.where().line, 5);
    EXPECT_EQ(e.where().key_path, "regimes.nvidia-fp8/latency.output_tok_s_per_gpu");
  }
  const std::string other = (dir / "other.yaml").string();
  std::ofstream(other) << "throughput_bound_sequences: 8\nregimes: {}\n";
  EXPECT_THROW(load_error_bands(other), core::Error) << "bands made for another batch threshold";
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace agentsim::calib
