#pragma once
// compare.html: the runs' headline curves overlaid (the first run, the baseline, dashed),
// their TTFT and single-agent speed, and a table of read-off deltas against the baseline
// for every (system, target) both runs have. Shared by `agentsim report` and `run --baseline`.
#include <string>
#include <vector>

#include "experiments/output/run_table.hpp"

namespace agentsim::exp {

struct ReadoffDelta {
  std::string system, target;  // target: "40 tok/s", "slo 40 tok/s" or "single agent"
  std::string baseline_label, run_label;
  std::string baseline_deployment, run_deployment;
  std::string figure;          // "total tok/s per MW"; for single agent "tok/s per agent"
  double baseline_value = 0, run_value = 0;  // the figure (NaN: not read off)
  double delta_pct = 0;  // (run - baseline) / baseline x 100; NaN when either is missing
};

// Every later table against the first, in the baseline's read-off order.
std::vector<ReadoffDelta> readoff_deltas(const std::vector<RunTable>& tables);

// The page; labels repeated across tables get " (2)", " (3)" appended.
std::string comparison_html(std::vector<RunTable> tables);

// Reads each run folder (read_run_table); throws on the first bad one before anything is written.
std::vector<RunTable> read_run_tables(const std::vector<std::string>& dirs);

}  // namespace agentsim::exp
