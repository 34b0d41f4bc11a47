#pragma once
// Two systems compared as a planner compares them: measured rows that ran the same work (model,
// engine, formats of the weights, prompt and answer lengths, load, speculation, scenario,
// disaggregation) on two systems are paired, and the ratio of one metric between the systems,
// measured and predicted, says whether the model ranks them right and by how much it misses.
#include <string>
#include <string_view>
#include <vector>

#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// A pair whose measured ratio is at least this far from 1 (either way) is decided. Assumed: above
// the spread of one configuration measured twice (several percent), so the runs' own noise cannot
// reverse a decided pair.
inline constexpr double kDecidedRatio = 1.10;

// Rows pair only when measured at most this many days apart (undated rows only with undated
// ones): the engines change from release to release (docs/validation.md, "By date"), and a pair a
// release apart compares the releases as much as the systems. Assumed: about one release cycle.
inline constexpr long long kPairedWithinDays = 31;

// One pair of systems: every matched pair of their rows.
struct SystemPair {
  std::string a, b;  // catalog systems, a < b; ratios are b over a
  int pairs = 0;
  int same_winner = 0;  // pairs whose predicted ratio is on the same side of 1 as the measured
  int decided = 0, decided_same_winner = 0;  // the same over the decided pairs (kDecidedRatio)
  double measured_ratio_median = 0, predicted_ratio_median = 0;
  // Ratio error of a pair: predicted ratio / measured ratio - 1, percent. Median signed, and the
  // median and largest of its absolute value.
  double ratio_error_median_pct = 0, abs_ratio_error_median_pct = 0, abs_ratio_error_max_pct = 0;
};

struct SystemComparisons {
  std::string metric;
  std::vector<SystemPair> systems;  // most pairs first, then by name
  int pairs = 0, same_winner = 0, decided = 0, decided_same_winner = 0;
  double abs_ratio_error_median_pct = 0;  // over every pair (NaN without one)
  std::string provenance;                 // how they were made (a written file's)
  // The pair of systems x and y in either order; nullptr when no row pairs them.
  const SystemPair* find(std::string_view x, std::string_view y) const;
};

// The shipped comparisons, relative to the source root (`agentsim validate ... --cv --comparisons`
// over every measured row); `explain --compare` prints the pair it compares from them.
inline constexpr std::string_view kShippedSystemComparisonsPath = "calibration/data/system_comparisons.yaml";

// `runs[i].engine` must name the engine the row ran (resolved, not ""); `predicted[i]` is row i's
// prediction of `metric` (NaN: not predicted, the row is left out). Rows match when every field of
// the work agrees and they were measured within kPairedWithinDays; each row of one system is
// paired with the matching row of the other that ran the same plan if one did, else the one
// measured nearest in date, then by id, from either side, each pair once.
SystemComparisons compare_systems(const std::vector<MeasuredRun>& runs, const std::vector<double>& predicted,
                                  std::string_view metric);

// YAML (docs/validation.md, "Comparing two systems"); load errors name file, line and key.
std::string system_comparisons_yaml(const SystemComparisons& c);
SystemComparisons load_system_comparisons(const std::string& path);

}  // namespace agentsim::calib
