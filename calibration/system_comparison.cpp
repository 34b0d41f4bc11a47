#include "calibration/system_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <set>
#include <tuple>
#include <utility>

#include "calibration/run_date.hpp"

namespace agentsim::calib {
namespace {

// The work a row ran, less the system: rows with equal keys on two systems are comparable.
using WorkKey = std::tuple<std::string, std::string, std::string, std::string, long long, long long, double, bool,
                           std::string, bool>;
WorkKey work_of(const MeasuredRun& r) {
  return {r.model, r.engine, r.weights_dtype, r.experts_dtype, r.isl, r.osl, r.concurrency, r.speculative,
          r.scenario, r.prefill_replicas > 0};
}

// Days between two rows' run dates; undated rows are furthest from every dated one.
long long days_apart(const MeasuredRun& x, const MeasuredRun& y) {
  if (x.run_date.empty() || y.run_date.empty()) {
    return x.run_date.empty() && y.run_date.empty() ? 0 : std::numeric_limits<long long>::max();
  }
  return std::llabs(run_day(x.run_date) - run_day(y.run_date));
}

// Of `candidates` (indices into runs), the one to pair with row `i`.
std::size_t partner(const std::vector<MeasuredRun>& runs, std::size_t i, const std::vector<std::size_t>& candidates) {
  const auto rank = [&](std::size_t j) {
    return std::make_tuple(runs[j].plan != runs[i].plan, days_apart(runs[i], runs[j]), runs[j].id, j);
  };
  return *std::min_element(candidates.begin(), candidates.end(),
                           [&](std::size_t x, std::size_t y) { return rank(x) < rank(y); });
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

SystemComparisons compare_systems(const std::vector<MeasuredRun>& runs, const std::vector<double>& predicted,
                                  std::string_view metric) {
  const std::size_t m = measured_metric_index(metric);
  // Rows with both sides of the metric, by work, then by system.
  std::map<WorkKey, std::map<std::string, std::vector<std::size_t>>> by_work;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const double meas = runs[i].metrics[m], pred = predicted[i];
    if (!(meas > 0) || !(pred > 0) || !std::isfinite(pred)) continue;
    by_work[work_of(runs[i])][runs[i].system].push_back(i);
  }
  // Matched pairs per system pair: (measured ratio, predicted ratio), b over a.
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<double, double>>> ratios;
  for (const auto& [work, systems] : by_work) {
    for (auto a = systems.begin(); a != systems.end(); ++a) {
      for (auto b = std::next(a); b != systems.end(); ++b) {
        std::set<std::pair<std::size_t, std::size_t>> pairs;
        for (std::size_t i : a->second) pairs.insert({i, partner(runs, i, b->second)});
        for (std::size_t j : b->second) pairs.insert({partner(runs, j, a->second), j});
        for (const auto& [i, j] : pairs) {
          ratios[{a->first, b->first}].push_back(
              {runs[j].metrics[m] / runs[i].metrics[m], predicted[j] / predicted[i]});
        }
      }
    }
  }
  SystemComparisons out;
  out.metric = std::string(metric);
  std::vector<double> all_abs;
  for (const auto& [names, v] : ratios) {
    SystemPair p;
    p.a = names.first;
    p.b = names.second;
    p.pairs = static_cast<int>(v.size());
    std::vector<double> meas, pred, err, abs_err;
    for (const auto& [mr, pr] : v) {
      meas.push_back(mr);
      pred.push_back(pr);
      err.push_back((pr / mr - 1) * 100);
      abs_err.push_back(std::abs(err.back()));
      const bool same = (mr > 1) == (pr > 1);
      p.same_winner += same;
      if (mr >= kDecidedRatio || mr <= 1 / kDecidedRatio) ++p.decided, p.decided_same_winner += same;
    }
    p.measured_ratio_median = median(meas);
    p.predicted_ratio_median = median(pred);
    p.ratio_error_median_pct = median(err);
    p.abs_ratio_error_median_pct = median(abs_err);
    p.abs_ratio_error_max_pct = *std::max_element(abs_err.begin(), abs_err.end());
    out.pairs += p.pairs;
    out.same_winner += p.same_winner;
    out.decided += p.decided;
    out.decided_same_winner += p.decided_same_winner;
    all_abs.insert(all_abs.end(), abs_err.begin(), abs_err.end());
    out.systems.push_back(std::move(p));
  }
  std::stable_sort(out.systems.begin(), out.systems.end(),
                   [](const SystemPair& x, const SystemPair& y) { return x.pairs > y.pairs; });
  out.abs_ratio_error_median_pct = all_abs.empty() ? std::nan("") : median(all_abs);
  return out;
}

}  // namespace agentsim::calib
