#pragma once
// Predicts measured serving runs: each row becomes a closed-loop run of one-turn
// requests (isl in, osl out or drawn with the row's answer spread, no gaps) at the
// row's concurrency, on the row's system, model, plan, precision, speculation and
// serving engine, with every other option from a base experiment.
#include <limits>
#include <string>
#include <vector>

#include "calibration/measured_runs.hpp"
#include "calibration/measured_sources.hpp"
#include "experiments/config/catalog.hpp"
#include "experiments/config/experiment.hpp"
#include "sim/serving/engine_overhead.hpp"

namespace agentsim::exp {

// One measured row ready to simulate.
struct ValidationRow {
  calib::MeasuredRun run;
  Experiment experiment;   // the one-plan experiment the row runs as
  serving::Engine engine;  // the row's engine (the base experiment's when the row names none)
  // Speculative on random-token prompts with no stated acceptance length: the drafts'
  // acceptance is the fitted `tokens_per_step` of predict_row (the card's when NaN).
  bool fit_acceptance = false;
};

struct PreparedRows {
  std::vector<ValidationRow> rows;
  std::vector<calib::SkippedRow> skipped;  // rows the catalog or the plan check refused, with the reason
};

// Builds each row's experiment. A row of agentsim's own measured-runs schema (`file` in
// `strict_files`) whose system, model, plan or engine does not resolve is an error at its
// file:line:column; a row of a transcribed set is skipped with the reason instead.
PreparedRows prepare_rows(const Experiment& base, const Catalog& catalog, const std::vector<calib::MeasuredRun>& runs,
                          const std::vector<std::string>& strict_files);

// Every prediction of one row (calib::kMeasuredMetrics order, NaN where not predicted),
// with the row's engine priced by `engine` (host overhead per step) and, for a
// fit_acceptance row, the drafter scaled to `tokens_per_step` (NaN: the card's).
std::vector<double> predict_row(const ValidationRow& row, const serving::EngineOverhead& engine,
                                double tokens_per_step = std::numeric_limits<double>::quiet_NaN());

// An MLPerf Server row's Poisson run at one rate: whether its p99 TTFT and TPOT meet the row's
// limits (and at least 90% of the offered requests completed in the window).
struct ServerPoint {
  double rate_per_s = 0;  // requests/s offered
  double ttft_p99_s = std::numeric_limits<double>::quiet_NaN();
  double tpot_p99_s = std::numeric_limits<double>::quiet_NaN();
  long long completed = 0;  // requests completed in the window
  bool meets = false;
};
ServerPoint server_probe(const ValidationRow& row, const serving::EngineOverhead& engine, double rate_per_s);
// The highest rate meeting them (bisected to within 2% below the saturated request rate; rate 0
// when none does): what predict_row reports for a Server row.
ServerPoint server_slo_rate(const ValidationRow& row, const serving::EngineOverhead& engine);

// predicted[i][m] for runs[i] with the base experiment's engine models (the catalog's).
// Runs execute on `threads` workers; results do not depend on the count.
std::vector<std::vector<double>> predict_measured_runs(const Experiment& base, const std::string& root,
                                                       const std::vector<calib::MeasuredRun>& runs,
                                                       const std::string& measured_file, int threads);

}  // namespace agentsim::exp
