#include "experiments/run/prediction_bands.hpp"

#include <cmath>
#include <filesystem>

#include "calibration/error_bands.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/sweep_outcome.hpp"

namespace agentsim::exp {

std::shared_ptr<const calib::ErrorBands> load_shipped_error_bands(const std::string& root) {
  const std::string path = root + "/" + std::string(calib::kShippedErrorBandsPath);
  if (!std::filesystem::exists(path)) return nullptr;
  return std::make_shared<const calib::ErrorBands>(calib::load_error_bands(path));
}

std::array<std::string, 2> band_regimes(const wl::ModelSpec& model, const hw::System& system, double sequences) {
  const std::string regime = calib::regime_name(calib::accelerator_generation(system.accelerator), sequences);
  const bool moe = model.ffn.experts > 0;
  return {calib::format_regime_name(regime, moe ? model.precision.experts : model.precision.weights, moe), regime};
}

PredictionBand band_for(const Experiment& e, const hw::System& system, double sequences) {
  PredictionBand b;
  if (!e.error_bands) return b;
  const std::array<std::string, 2> regimes = band_regimes(e.model, system, sequences);
  const auto find = [&](const std::string& r, std::string_view metric) { return e.error_bands->find(r, metric); };
  const calib::Band *nt = find(regimes[0], "output_tok_s_per_gpu"), *na = find(regimes[0], "agent_output_tok_s");
  const calib::Band *gt = find(regimes[1], "output_tok_s_per_gpu"), *ga = find(regimes[1], "agent_output_tok_s");
  // The narrower regime where it has a band for every metric the generation's has, so that
  // narrowing never drops a bound.
  const bool narrow = (nt || na) && (nt || !gt) && (na || !ga);
  const std::string& regime = narrow ? regimes[0] : regimes[1];
  const calib::Band* t = narrow ? nt : gt;
  const calib::Band* a = narrow ? na : ga;
  if (!t && !a) {
    b.regime = regime + " (not validated)";
    return b;
  }
  b.regime = regime + " (" + std::to_string(t ? t->rows : a->rows) + " rows)";
  if (t) b.throughput_lo = t->lo(1.0), b.throughput_hi = t->hi(1.0);
  if (a) b.agent_lo = a->lo(1.0), b.agent_hi = a->hi(1.0);
  return b;
}

void attach_error_bands(const Experiment& e, SweepOutcome& out) {
  if (!e.error_bands) return;
  for (RunResult& r : out.runs) {
    for (const hw::System& s : e.systems) {
      if (r.skipped.empty() && s.name == r.system) r.band = band_for(e, s, r.summary.mean_batch_sequences);
    }
  }
  const auto attach = [&](ReadoffRow& row) {
    if (row.plan < 0 || !std::isfinite(row.concurrency)) return;
    const std::string prefix = plan_prefix(e, row.plan);
    const RunResult* nearest = nullptr;
    for (const RunResult& r : out.runs) {
      if (!r.skipped.empty() || r.id.rfind(prefix, 0) != 0) continue;
      if (!nearest || std::abs(r.level - row.concurrency) < std::abs(nearest->level - row.concurrency)) nearest = &r;
    }
    if (!nearest) return;
    const PredictionBand& b = nearest->band;
    row.band_regime = b.regime;
    row.total_tok_s_per_mw_lo = row.total_tok_s_per_mw * b.throughput_lo;
    row.total_tok_s_per_mw_hi = row.total_tok_s_per_mw * b.throughput_hi;
    if (row.target_kind == "single_agent") {
      row.agent_tok_s_lo = row.target_agent_tok_s * b.agent_lo;
      row.agent_tok_s_hi = row.target_agent_tok_s * b.agent_hi;
    }
  };
  for (ReadoffRow& row : out.plan_readoffs) attach(row);
  for (ReadoffRow& row : out.readoffs) attach(row);
}

}  // namespace agentsim::exp
