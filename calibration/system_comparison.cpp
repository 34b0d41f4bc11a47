#include "calibration/system_comparison.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include <yaml-cpp/yaml.h>

#include "calibration/run_date.hpp"
#include "sim/core/error.hpp"
#include "sim/core/yaml_node.hpp"

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

// Of `candidates` (indices into runs), the one to pair with row `i`; none when every one was
// measured more than kPairedWithinDays from it.
std::optional<std::size_t> partner(const std::vector<MeasuredRun>& runs, std::size_t i,
                                   const std::vector<std::size_t>& candidates) {
  std::optional<std::size_t> best;
  const auto rank = [&](std::size_t j) {
    return std::make_tuple(runs[j].plan != runs[i].plan, days_apart(runs[i], runs[j]), runs[j].id, j);
  };
  for (std::size_t j : candidates) {
    if (days_apart(runs[i], runs[j]) > kPairedWithinDays) continue;
    if (!best || rank(j) < rank(*best)) best = j;
  }
  return best;
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
        for (std::size_t i : a->second) {
          if (const auto j = partner(runs, i, b->second)) pairs.insert({i, *j});
        }
        for (std::size_t j : b->second) {
          if (const auto i = partner(runs, j, a->second)) pairs.insert({*i, j});
        }
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

const SystemPair* SystemComparisons::find(std::string_view x, std::string_view y) const {
  for (const SystemPair& p : systems) {
    if ((p.a == x && p.b == y) || (p.a == y && p.b == x)) return &p;
  }
  return nullptr;
}

std::string system_comparisons_yaml(const SystemComparisons& c) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "provenance" << YAML::Value << c.provenance;
  out << YAML::Key << "metric" << YAML::Value << c.metric;
  out << YAML::Key << "decided_ratio" << YAML::Value << kDecidedRatio;
  if (std::isfinite(c.abs_ratio_error_median_pct)) {  // NaN: no pair
    out << YAML::Key << "abs_ratio_error_median_pct" << YAML::Value << c.abs_ratio_error_median_pct;
  }
  out << YAML::Key << "systems" << YAML::Value << YAML::BeginSeq;
  for (const SystemPair& p : c.systems) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "a" << YAML::Value << p.a << YAML::Key << "b" << YAML::Value << p.b;
    out << YAML::Key << "pairs" << YAML::Value << p.pairs << YAML::Key << "same_winner" << YAML::Value << p.same_winner;
    out << YAML::Key << "decided" << YAML::Value << p.decided;
    out << YAML::Key << "decided_same_winner" << YAML::Value << p.decided_same_winner;
    out << YAML::Key << "measured_ratio_median" << YAML::Value << p.measured_ratio_median;
    out << YAML::Key << "predicted_ratio_median" << YAML::Value << p.predicted_ratio_median;
    out << YAML::Key << "ratio_error_median_pct" << YAML::Value << p.ratio_error_median_pct;
    out << YAML::Key << "abs_ratio_error_median_pct" << YAML::Value << p.abs_ratio_error_median_pct;
    out << YAML::Key << "abs_ratio_error_max_pct" << YAML::Value << p.abs_ratio_error_max_pct;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

SystemComparisons load_system_comparisons(const std::string& path) {
  static constexpr core::OptionSpec kTop[] = {
      {"provenance", "string", "", "how the comparisons were made"},
      {"metric", "string", "", "the measured metric compared"},
      {"decided_ratio", "number", "", "kDecidedRatio"},
      {"abs_ratio_error_median_pct", "number", "", "median absolute ratio error over every pair (absent: none)"},
      {"systems", "list", "", "one entry per pair of systems"}};
  static constexpr core::OptionSpec kPair[] = {
      {"a", "string", "", ""}, {"b", "string", "", ""}, {"pairs", "integer", "", ""},
      {"same_winner", "integer", "", ""}, {"decided", "integer", "", ""}, {"decided_same_winner", "integer", "", ""},
      {"measured_ratio_median", "number", "", ""}, {"predicted_ratio_median", "number", "", ""},
      {"ratio_error_median_pct", "number", "", ""}, {"abs_ratio_error_median_pct", "number", "", ""},
      {"abs_ratio_error_max_pct", "number", "", ""}};
  const core::YamlNode root = core::YamlNode::load_file(path);
  root.check_keys(kTop);
  SystemComparisons out;
  out.provenance = root.string_or("provenance", "");
  const core::YamlNode metric = root.at("metric");
  out.metric = metric.as_string();
  try {
    (void)measured_metric_index(out.metric);
  } catch (const core::Error&) {
    throw metric.error("expected a measured metric's name");
  }
  if (const core::YamlNode d = root.at("decided_ratio"); d.as_number() != kDecidedRatio) {
    std::ostringstream want;
    want << kDecidedRatio;
    throw d.error("expected " + want.str() + " (the decided pairs' measured ratio)");
  }
  const std::vector<core::YamlNode> systems = root.at("systems").items();
  out.abs_ratio_error_median_pct = std::nan("");
  if (!systems.empty()) {  // the median over every pair, written where there is one
    const core::YamlNode median = root.at("abs_ratio_error_median_pct");
    out.abs_ratio_error_median_pct = median.as_number();
    if (!(out.abs_ratio_error_median_pct >= 0)) throw median.error("expected a percentage >= 0");
  }
  for (const core::YamlNode& n : systems) {
    n.check_keys(kPair);
    const auto count = [&](std::string_view k) { return static_cast<int>(n.at(k).as_integer()); };
    SystemPair p;
    p.a = n.at("a").as_string();
    p.b = n.at("b").as_string();
    p.pairs = count("pairs");
    p.same_winner = count("same_winner");
    p.decided = count("decided");
    p.decided_same_winner = count("decided_same_winner");
    p.measured_ratio_median = n.at("measured_ratio_median").as_number();
    p.predicted_ratio_median = n.at("predicted_ratio_median").as_number();
    p.ratio_error_median_pct = n.at("ratio_error_median_pct").as_number();
    p.abs_ratio_error_median_pct = n.at("abs_ratio_error_median_pct").as_number();
    p.abs_ratio_error_max_pct = n.at("abs_ratio_error_max_pct").as_number();
    if (!(p.a < p.b) || p.pairs < 1 || p.same_winner < 0 || p.same_winner > p.pairs || p.decided < 0 ||
        p.decided > p.pairs || p.decided_same_winner < 0 || p.decided_same_winner > p.decided ||
        !(p.measured_ratio_median > 0) || !(p.predicted_ratio_median > 0) || !(p.abs_ratio_error_median_pct >= 0) ||
        !(p.abs_ratio_error_max_pct >= p.abs_ratio_error_median_pct)) {
      throw n.error(
          "expected systems a < b, pairs >= 1, same_winner and decided <= pairs, decided_same_winner <= decided, "
          "measured_ratio_median and predicted_ratio_median > 0, abs_ratio_error_median_pct >= 0, "
          "abs_ratio_error_max_pct >= the median");
    }
    out.pairs += p.pairs;
    out.same_winner += p.same_winner;
    out.decided += p.decided;
    out.decided_same_winner += p.decided_same_winner;
    out.systems.push_back(std::move(p));
  }
  return out;
}

}  // namespace agentsim::calib
