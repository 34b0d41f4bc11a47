#pragma once
// The whole pipeline of `agentsim run`: the sweep, the SLO bisections, the
// read-off table and the per-system deployment choice. Identical on every
// rank and for any thread count.
#include <vector>

#include "experiments/output/readoff_table.hpp"
#include "experiments/run/sweep_executor.hpp"

namespace agentsim::exp {

struct SweepOutcome {
  std::vector<RunResult> runs;             // sweep runs in expansion order, then bisection runs by plan and level
  std::vector<ReadoffRow> plan_readoffs;   // every plan x target
  std::vector<ReadoffRow> readoffs;        // per system and target, the chosen plan
};

SweepOutcome run_experiment(const Experiment& e, const wl::Trace& sessions, const ExecOptions& opt,
                            const SweepRanks& ranks);

}  // namespace agentsim::exp
