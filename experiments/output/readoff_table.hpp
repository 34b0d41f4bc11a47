#pragma once
// The read-off table (DESIGN.md section 3): per plan and target, tokens/s per MW
// and agents per MW either at a per-agent p50 speed (interpolated between the
// bracketing sweep points, never extrapolated) or at the largest concurrency
// meeting an SLO tier (bisection on concurrency); then, per system and target,
// the plan with the best figure (the deployment search). Pure computation.
#include <limits>
#include <string>
#include <vector>

#include "experiments/config/experiment.hpp"
#include "experiments/run/runner.hpp"

namespace agentsim::exp {

struct ReadoffRow {
  std::string system;
  std::string deployment;
  int plan = -1;                 // index into Experiment::plans (-1: the system has no runnable plan)
  std::string target_kind;       // "speed", "slo" or "single_agent" (concurrency 1)
  double target_agent_tok_s = 0;   // the target (speed, SLO tier); for single_agent the speed found
  double total_tok_s_per_mw = 0;   // NaN when not read off
  double output_tok_s_per_mw = 0;
  double agents_per_mw = 0;
  double concurrency = 0;          // where it was read (interpolated for speed targets)
  bool in_swept_range = false;
  // SLO rows: the tier is still met at the largest swept concurrency, so the figure is a floor
  // (the plan serves at least that many agents per MW); never set for in-range rows.
  bool lower_bound = false;
  std::string note;                // brackets, or why it is outside the range
  std::string runner_up;           // choose_plans: the second-best plan's deployment ("" if none)
  // Error band (attach_error_bands): the regime and the bounds its cross-validated errors imply.
  std::string band_regime;
  double total_tok_s_per_mw_lo = std::numeric_limits<double>::quiet_NaN();
  double total_tok_s_per_mw_hi = std::numeric_limits<double>::quiet_NaN();
  double agent_tok_s_lo = std::numeric_limits<double>::quiet_NaN();  // single_agent rows: the speed's band
  double agent_tok_s_hi = std::numeric_limits<double>::quiet_NaN();
};

// Per-MW figures of a run (facility power); NaN when the run has no power.
double per_mw(double value, const RunResult& r);
bool meets_slo(const RunResult& r, const SloTier& tier);
// How far a run is inside the tier, on a log scale: min(ln(speed / tier), ln(limit / TTFT)),
// clamped to +-20; >= 0 exactly when meets_slo; -1 for a run that was skipped or completed nothing.
double slo_margin(const RunResult& r, const SloTier& tier);

// Runs of `plan` that ran (not skipped), sweep runs only unless `with_bisection`, sorted by level.
std::vector<const RunResult*> plan_runs(const std::vector<RunResult>& runs, const std::string& id_prefix,
                                        bool with_bisection);
std::string plan_prefix(const Experiment& e, int plan);

// Interpolated between the bracketing runs of the plan (sweep and bisection runs alike); where
// every run is at or above the speed and throughput has passed its peak (passed_peak, the auto
// ladder's top run counting as final), read off at the peak.
ReadoffRow speed_readoff(const Experiment& e, int plan, const std::vector<RunResult>& runs, double speed);
// Runs in level order whose total throughput has passed its peak: the index of the peak run when
// the last two runs are both 5% below it (one noisy run does not count), the last one has
// collapsed below half of it, or the last, 5% below it, is `last_is_final` (no run can follow
// it to confirm the fall); runs.size() otherwise.
std::size_t passed_peak(const std::vector<const RunResult*>& runs, bool last_is_final = false);
// Single-agent speed: the p50 per-agent speed of the plan's concurrency-1 run, and its per-MW figures.
ReadoffRow single_agent_readoff(const Experiment& e, int plan, const std::vector<RunResult>& runs);

// The swept concurrencies bracketing the SLO boundary: lo meets, hi (the first failing) does not.
// `bracketed` is false when the SLO fails at the smallest or holds at the largest swept level.
struct SloBracket {
  bool bracketed = false;
  long long lo = 0, hi = 0;
};
SloBracket slo_bracket(const std::vector<const RunResult*>& sweep_runs, const SloTier& tier);
ReadoffRow slo_readoff(const Experiment& e, int plan, const std::vector<RunResult>& runs, const SloTier& tier);

// Every plan x target, in plan order then target order (speeds, SLO tiers, then single_agent).
std::vector<ReadoffRow> all_readoffs(const Experiment& e, const std::vector<RunResult>& runs);
// Per system (in experiment order) and target: the best plan's row, naming the runner-up.
std::vector<ReadoffRow> choose_plans(const Experiment& e, const std::vector<ReadoffRow>& all);

}  // namespace agentsim::exp
