#pragma once
// Error bands from cross-validated residuals. A validated regime is an accelerator
// generation (vendor and newest math format, e.g. "nvidia-fp4" for Blackwell) and a batch
// regime (latency- or throughput-bound decode), optionally narrowed to the weights' stored
// format (format_regime_name); per regime and headline metric the band is
// the 10th-90th percentile of the signed CV error (predicted - measured) / measured of the
// rows `agentsim validate --cv` compared. A prediction p maps to [p / (1 + e90), p / (1 + e10)].
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "hwmodels/accelerator.hpp"

namespace agentsim::calib {

// Decode sequences per replica step above which a run counts as throughput-bound (assumed: the
// middle of the measured concurrency sweeps, 1-256 per replica, where the decode step of the
// validated MoE models turns from weight-read-bound to growing with the batch).
inline constexpr double kThroughputBoundSequences = 16;

// "nvidia-fp4", "amd-fp8", …: the vendor and the narrowest float format with a math peak.
std::string accelerator_generation(const hw::Accelerator& a);
// "nvidia-fp4/latency" or "nvidia-fp4/throughput".
std::string regime_name(const std::string& generation, double sequences_per_replica);
// The regime narrowed to the format of the weights that dominate: an MoE model's routed experts
// ("nvidia-fp4/throughput/fp4-experts", grouped-GEMM kernels) or a dense model's weights
// ("nvidia-fp4/throughput/fp4-weights", dense GEMMs), which validation errs on apart. Rows count in
// both; a run takes the narrower regime where it has every band the wider one has (exp::band_for).
std::string format_regime_name(const std::string& regime, hw::DType format, bool experts);

// The shipped bands, relative to the source root (`agentsim validate ... --cv --bands` over every
// measured row); an experiment's `error_bands` key names others.
inline constexpr std::string_view kShippedErrorBandsPath = "calibration/data/error_bands.yaml";

// The headline metrics a band is kept for (names of calib::kMeasuredMetrics).
inline constexpr std::string_view kBandMetrics[] = {"output_tok_s_per_gpu", "agent_output_tok_s"};

struct Band {
  double err_p10 = 0, err_p90 = 0;  // signed relative CV error percentiles
  int rows = 0;
  double lo(double predicted) const { return predicted / (1 + err_p90); }
  double hi(double predicted) const { return predicted / (1 + err_p10); }
};

struct ErrorBands {
  std::map<std::string, std::map<std::string, Band>> by_regime;  // regime -> metric -> band
  std::string provenance;                                        // how the bands were made
  // The band of `metric` in `regime`; nullptr outside every validated regime.
  const Band* find(const std::string& regime, std::string_view metric) const;
};

// One compared (row, metric): its regime and its signed CV error.
struct Residual {
  std::string regime, metric;
  double error = 0;
};

// Bands of every (regime, metric) with at least `min_rows` residuals.
ErrorBands fit_error_bands(const std::vector<Residual>& residuals, int min_rows, std::string provenance);

// YAML (docs/calibration.md, "Error bands"); load errors name file, line and key.
std::string error_bands_yaml(const ErrorBands& b);
ErrorBands load_error_bands(const std::string& path);

}  // namespace agentsim::calib
