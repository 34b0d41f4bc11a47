#pragma once
// The whole pipeline of `agentsim run`: the sweep, the SLO bisections, the
// read-off table and the per-system deployment choice. Identical on every
// rank and for any thread count.
#include <string>
#include <vector>

#include "experiments/output/readoff_table.hpp"
#include "experiments/run/sweep_executor.hpp"

namespace agentsim::exp {

struct SweepOutcome {
  std::vector<RunResult> runs;             // sweep runs in expansion order, then bisection runs by plan and level
  std::vector<ReadoffRow> plan_readoffs;   // every plan x target
  std::vector<ReadoffRow> readoffs;        // per system and target, the chosen plan
  // search: auto: per system, the plans simulated with their bound and simulated ranks and the
  // Spearman correlation between them (empty without the search).
  std::string ranking_log;
};

// With search: auto, plans rank_plans held back are simulated (and un-pruned in `e`) while the
// best simulated plan of a system is the lowest-ranked of those simulated down the ranking, and
// where another system chose the same deployment for a read-off.
SweepOutcome run_experiment(Experiment& e, const wl::Trace& sessions, const ExecOptions& opt,
                            const SweepRanks& ranks);

// The read-off a plan's simulation is ranked by: total (`output`: output) tok/s per MW at the
// first speed target, else agents per MW at the first SLO tier, else the single-agent speed; -1
// when not read off.
double simulated_score(const Experiment& e, int plan, const std::vector<ReadoffRow>& plan_readoffs,
                       bool output = false);

// What trusting the bound alone would cost: `score` is the simulated read-off of the simulated
// plans in bound order (-1: none); how far the first falls below the best, as text.
std::string first_choice_cost(const std::vector<double>& score);

// Per system: the simulated plans in bound order with their simulated rank, the Spearman
// correlation of the bound against the simulated read-off (and, for a speed target, output per
// MW), and first_choice_cost.
std::string ranking_report(const Experiment& e, const std::vector<ReadoffRow>& plan_readoffs);

}  // namespace agentsim::exp
