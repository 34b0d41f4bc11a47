#pragma once
// Predicts measured serving runs: each row becomes a closed-loop run of
// fixed-length requests (isl in, osl out, no gaps) at the row's concurrency, on
// the row's system, model and plan, with every other option from a base experiment.
#include <string>
#include <vector>

#include "calibration/measured_runs.hpp"
#include "experiments/experiment.hpp"

namespace agentsim::exp {

// predicted[i][m] for runs[i] and calib::kMeasuredMetrics[m] (NaN where not predicted).
// `measured_file` names the CSV in errors (a row's system, model or plan that does not
// resolve is an error at its line). Runs execute on `threads` workers; results do not
// depend on the count.
std::vector<std::vector<double>> predict_measured_runs(const Experiment& base, const std::string& root,
                                                       const std::vector<calib::MeasuredRun>& runs,
                                                       const std::string& measured_file, int threads);

}  // namespace agentsim::exp
