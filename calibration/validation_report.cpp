#include "calibration/validation_report.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

namespace agentsim::calib {

ValidationReport compare(const std::vector<MeasuredRun>& runs, const std::vector<std::vector<double>>& predicted) {
  if (predicted.size() != runs.size()) throw core::Error("one prediction row is needed per measured row");
  ValidationReport rep;
  std::vector<MetricSummary> sums(kMeasuredMetricCount);
  for (std::size_t i = 0; i < runs.size(); ++i) {
    if (predicted[i].size() != kMeasuredMetricCount) throw core::Error("prediction row has the wrong width");
    for (std::size_t m = 0; m < kMeasuredMetricCount; ++m) {
      const double meas = runs[i].metrics[m];
      const double pred = predicted[i][m];
      if (std::isnan(meas) || !std::isfinite(pred)) continue;
      MetricError e{runs[i].id, std::string(kMeasuredMetrics[m]), meas, pred, (pred - meas) / meas * 100.0};
      rep.errors.push_back(e);
      MetricSummary& s = sums[m];
      ++s.rows;
      s.mape_pct += std::abs(e.error_pct);
      s.mean_pct += e.error_pct;
      s.max_abs_pct = std::max(s.max_abs_pct, std::abs(e.error_pct));
    }
  }
  for (std::size_t m = 0; m < kMeasuredMetricCount; ++m) {
    if (sums[m].rows == 0) continue;
    sums[m].metric = std::string(kMeasuredMetrics[m]);
    sums[m].mape_pct /= sums[m].rows;
    sums[m].mean_pct /= sums[m].rows;
    rep.summaries.push_back(sums[m]);
  }
  return rep;
}

std::vector<MetricError> ValidationReport::worst(std::size_t n) const {
  std::vector<MetricError> out = errors;
  std::stable_sort(out.begin(), out.end(), [](const MetricError& a, const MetricError& b) {
    return std::abs(a.error_pct) > std::abs(b.error_pct);
  });
  if (out.size() > n) out.resize(n);
  return out;
}

}  // namespace agentsim::calib
