#pragma once
// Predicted against measured: the signed error of every (row, metric) both
// sides have, the MAPE per metric, and the worst rows.
#include <string>
#include <vector>

#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

struct MetricError {
  std::string id;        // measured row id
  std::string metric;
  double measured = 0;
  double predicted = 0;
  double error_pct = 0;  // (predicted - measured) / measured x 100
};

struct MetricSummary {
  std::string metric;
  int rows = 0;
  double mape_pct = 0;       // mean |error_pct|
  double mean_pct = 0;       // mean error_pct (signed: > 0 predicts above the measurement)
  double max_abs_pct = 0;
};

struct ValidationReport {
  std::vector<MetricError> errors;       // in row order, then metric order
  std::vector<MetricSummary> summaries;  // metrics with at least one row, in kMeasuredMetrics order
  // The n errors of largest |error_pct| (ties: earlier first).
  std::vector<MetricError> worst(std::size_t n) const;
};

// predicted[i][m] is the prediction for runs[i], metric m (NaN = not predicted).
ValidationReport compare(const std::vector<MeasuredRun>& runs,
                         const std::vector<std::vector<double>>& predicted);

}  // namespace agentsim::calib
