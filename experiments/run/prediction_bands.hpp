#pragma once
// Error bands on a sweep's predictions (calibration/error_bands.hpp): a run's regime is its
// system's accelerator generation and its mean decode batch per replica step, narrowed to the
// format the model's weights are stored in where that regime has a band; its headline
// figures get the [lo, hi] the regime's cross-validated errors imply, and a read-off takes the
// band of the run nearest the concurrency it was read at. Outside every validated regime the
// bounds stay NaN (empty CSV cells) and the regime says "not validated".
#include <array>
#include <limits>
#include <memory>
#include <string>

#include "hwmodels/system.hpp"
#include "workloads/model/model_spec.hpp"

namespace agentsim::calib {
struct ErrorBands;
}

namespace agentsim::exp {

// Multiplicative bounds of one run's predictions (NaN: no band).
struct PredictionBand {
  std::string regime;  // e.g. "nvidia-fp4/throughput (60 rows)"; "" when no bands are loaded
  double throughput_lo = std::numeric_limits<double>::quiet_NaN();  // x output and total tok/s (and per MW)
  double throughput_hi = std::numeric_limits<double>::quiet_NaN();
  double agent_lo = std::numeric_limits<double>::quiet_NaN();  // x per-agent speed
  double agent_hi = std::numeric_limits<double>::quiet_NaN();
};

struct Experiment;
struct SweepOutcome;

// The shipped bands, calibration/data/error_bands.yaml under `root` (null when absent).
std::shared_ptr<const calib::ErrorBands> load_shipped_error_bands(const std::string& root);

// The validated regimes a run of `model` on `system` at `sequences` decodes per replica step
// falls in, narrowest first: with the weights' stored format (the routed experts' for an MoE
// model), then without. Validation files its residuals under both.
std::array<std::string, 2> band_regimes(const wl::ModelSpec& model, const hw::System& system, double sequences);

// The band of a run on `system` whose mean decode batch per replica step is `sequences`,
// from e.error_bands (an empty band without them): the narrower of band_regimes where it has a
// band for every metric the wider has, else the wider.
PredictionBand band_for(const Experiment& e, const hw::System& system, double sequences);

// Fills every run's band and the read-offs' bounds from e.error_bands (nothing without them).
void attach_error_bands(const Experiment& e, SweepOutcome& out);

}  // namespace agentsim::exp
