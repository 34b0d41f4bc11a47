#include "experiments/run/validation_fit.hpp"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <limits>

namespace agentsim::exp {
namespace {

bool is_rate(std::size_t m) {
  const std::string_view n = calib::kMeasuredMetrics[m];
  return n == "output_tok_s_per_gpu" || n == "total_tok_s_per_gpu" || n == "agent_output_tok_s";
}

bool is_fit_metric(std::size_t m) {
  return std::find(std::begin(kFitMetrics), std::end(kFitMetrics), calib::kMeasuredMetrics[m]) != std::end(kFitMetrics);
}

}  // namespace

std::vector<double> interpolate(const GridPredictions& g, double theta, std::span<const double> grid) {
  const std::size_t n = grid.size();
  theta = std::clamp(theta, grid[0], grid[n - 1]);
  std::size_t hi = 1;
  while (hi < n - 1 && grid[hi] < theta) ++hi;
  const std::size_t lo = hi - 1;
  const double f = (theta - grid[lo]) / (grid[hi] - grid[lo]);
  std::vector<double> out(calib::kMeasuredMetricCount, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t m = 0; m < out.size(); ++m) {
    const double a = g.at[lo][m], b = g.at[hi][m];
    if (!std::isfinite(a) || !std::isfinite(b)) continue;
    out[m] = is_rate(m) ? 1.0 / ((1 - f) / a + f / b) : (1 - f) * a + f * b;
  }
  return out;
}

double fit_mape(const std::vector<const calib::MeasuredRun*>& runs, const std::vector<std::vector<double>>& predicted) {
  double sum = 0;
  int n = 0;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (std::size_t m = 0; m < calib::kMeasuredMetricCount; ++m) {
      const double meas = runs[i]->metrics[m], pred = predicted[i][m];
      if (!is_fit_metric(m) || std::isnan(meas) || !std::isfinite(pred)) continue;
      sum += std::abs(pred - meas) / meas * 100.0;
      ++n;
    }
  }
  return n > 0 ? sum / n : std::numeric_limits<double>::quiet_NaN();
}

double fit_parameter(const std::vector<calib::MeasuredRun>& runs, const std::vector<GridPredictions>& grids,
                     const std::vector<std::size_t>& rows, std::span<const double> grid) {
  std::vector<const calib::MeasuredRun*> sel;
  sel.reserve(rows.size());
  for (std::size_t i : rows) sel.push_back(&runs[i]);
  const auto objective = [&](double theta) {
    std::vector<std::vector<double>> pred;
    pred.reserve(rows.size());
    for (std::size_t i : rows) pred.push_back(interpolate(grids[i], theta, grid));
    return fit_mape(sel, pred);
  };
  const double lo = grid.front(), hi = grid.back();
  const double step = (hi - lo) / 400;  // 0.01 ms on kFitGrid
  double best = std::numeric_limits<double>::quiet_NaN(), best_v = std::numeric_limits<double>::infinity();
  for (double t = lo; t <= hi + step / 2; t += step) {
    const double v = objective(t);
    if (std::isfinite(v) && v < best_v - 1e-12) best_v = v, best = t;
  }
  if (std::isnan(best)) return best;
  // Refine inside the neighbouring steps (the objective is piecewise smooth).
  double a = std::max(lo, best - step), b = std::min(hi, best + step);
  for (int it = 0; it < 40; ++it) {
    const double m1 = a + (b - a) / 3, m2 = b - (b - a) / 3;
    if (objective(m1) <= objective(m2)) b = m2;
    else a = m1;
  }
  const double refined = (a + b) / 2;
  return objective(refined) <= best_v ? refined : best;
}

double fit_request_latency(const std::vector<calib::MeasuredRun>& runs,
                           const std::vector<std::vector<double>>& at_latency, double simulated_s,
                           const std::vector<std::size_t>& rows) {
  struct Pair {
    double measured, predicted;
  };
  std::vector<Pair> pairs;
  for (std::size_t i : rows) {
    for (std::string_view name : kLatencyFitMetrics) {
      const std::size_t m = calib::measured_metric_index(name);
      const double meas = runs[i].metrics[m], pred = at_latency[i][m];
      if (std::isnan(meas) || !(meas > 0) || !std::isfinite(pred)) continue;
      pairs.push_back({meas, pred - simulated_s});
    }
  }
  if (pairs.empty()) return std::numeric_limits<double>::quiet_NaN();
  constexpr int kSteps = 5000;  // 0.1 ms
  double best = 0, best_v = std::numeric_limits<double>::infinity();
  for (int k = 0; k <= kSteps; ++k) {
    const double latency = kLatencyMax_s * k / kSteps;
    double sum = 0;
    for (const Pair& p : pairs) sum += std::abs(p.predicted + latency - p.measured) / p.measured;
    if (sum < best_v - 1e-12) best_v = sum, best = latency;
  }
  return best;
}

}  // namespace agentsim::exp
