#include "experiments/sweep_outcome.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "experiments/bisect.hpp"

namespace agentsim::exp {

namespace {

// concurrency: auto stops doubling a plan once this holds for its runs so far (in level order):
// every speed target and SLO tier is bracketed (the last run is below each), the run could not
// be simulated or completed nothing, or throughput has passed its peak (the last two runs both 5%
// below the best before them: one noisy low-concurrency run does not stop the ladder).
bool auto_sweep_done(const Experiment& e, const std::vector<RunResult>& runs) {
  const RunResult& last = runs.back();
  if (!last.skipped.empty() || last.summary.requests == 0) return true;
  const std::size_t n = runs.size();
  if (n >= 3) {
    double peak = 0;
    for (std::size_t i = 0; i + 2 < n; ++i) peak = std::max(peak, runs[i].summary.total_tok_s);
    if (runs[n - 2].summary.total_tok_s < 0.95 * peak && last.summary.total_tok_s < 0.95 * peak) return true;
  }
  for (double s : e.readoff_speeds_tok_s) {
    if (!(last.summary.agent_output_tok_s_p50 < s)) return false;
  }
  for (const auto& tier : e.slo_tiers) {
    if (meets_slo(last, tier)) return false;
  }
  return true;
}

// The ladder 1, 2, 4, ... (workload.levels) run round by round for the plans still open; plan-major order.
std::vector<RunResult> auto_sweep(const Experiment& e, const wl::Trace& sessions, const ExecOptions& opt,
                                  const Cluster& cluster) {
  std::vector<int> open;
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    if (e.plans[p].pruned.empty()) open.push_back(static_cast<int>(p));
  }
  std::vector<std::vector<RunResult>> per_plan(e.plans.size());
  for (double level : e.workload.levels) {
    if (open.empty()) break;
    auto made = run_sharded(
        open.size(),
        [&](std::size_t i) { return std::vector<RunResult>{cached_run(e, sessions, make_point(e, open[i], level), opt)}; },
        opt, cluster, "sweep");
    std::vector<int> still;
    for (std::size_t i = 0; i < open.size(); ++i) {
      auto& runs = per_plan[static_cast<std::size_t>(open[i])];
      runs.push_back(std::move(made[i].front()));
      if (!auto_sweep_done(e, runs)) still.push_back(open[i]);
    }
    open = std::move(still);
  }
  std::vector<RunResult> out;
  for (auto& runs : per_plan) {
    for (auto& r : runs) out.push_back(std::move(r));
  }
  return out;
}

// One bisection between two swept levels: `good` meets the target, `bad` (the next level) does not.
struct Bisection {
  int plan = 0;
  long long good = 0, bad = 0;
  std::function<bool(const RunResult&)> meets;
};

}  // namespace

SweepOutcome run_experiment(const Experiment& e, const wl::Trace& sessions, const ExecOptions& opt,
                            const Cluster& cluster) {
  SweepOutcome out;
  if (e.workload.auto_concurrency) {
    out.runs = auto_sweep(e, sessions, opt, cluster);
  } else {
    const std::vector<SweepPoint> points = expand_sweep(e);
    auto sweep = run_sharded(
        points.size(), [&](std::size_t i) { return std::vector<RunResult>{cached_run(e, sessions, points[i], opt)}; },
        opt, cluster, "sweep");
    for (auto& v : sweep) {
      for (auto& r : v) out.runs.push_back(std::move(r));
    }
  }

  // Bisections: each SLO tier the sweep brackets (to the exact concurrency with a fixed list, within
  // 2% with auto); with auto also each speed target, so its read-off interpolates over a narrow bracket.
  const bool narrow = e.workload.auto_concurrency;
  const double fraction = narrow ? 0.02 : 0.0;
  std::vector<Bisection> tasks;
  if (e.workload.mode == ReplayMode::kClosedLoop) {
    for (std::size_t p = 0; p < e.plans.size(); ++p) {
      if (!e.plans[p].pruned.empty()) continue;
      const auto runs = plan_runs(out.runs, plan_prefix(e, static_cast<int>(p)), false);
      for (const auto& tier : e.slo_tiers) {
        const SloBracket b = slo_bracket(runs, tier);
        if (b.bracketed && b.hi - b.lo > 1) {
          tasks.push_back({static_cast<int>(p), b.lo, b.hi, [tier](const RunResult& r) { return meets_slo(r, tier); }});
        }
      }
      if (!narrow) continue;
      for (double s : e.readoff_speeds_tok_s) {
        auto fast_enough = [s](const RunResult& r) { return r.summary.agent_output_tok_s_p50 >= s; };
        for (std::size_t i = 1; i < runs.size(); ++i) {
          if (fast_enough(*runs[i - 1]) && !fast_enough(*runs[i])) {
            const auto lo = static_cast<long long>(runs[i - 1]->level), hi = static_cast<long long>(runs[i]->level);
            if (hi - lo > std::max<long long>(1, static_cast<long long>(fraction * static_cast<double>(lo)))) {
              tasks.push_back({static_cast<int>(p), lo, hi, fast_enough});
            }
            break;
          }
        }
      }
    }
  }
  auto bisected = run_sharded(
      tasks.size(),
      [&](std::size_t i) {
        const Bisection& t = tasks[i];
        std::vector<RunResult> made;
        auto probe = [&](long long c) {
          made.push_back(cached_run(e, sessions, make_point(e, t.plan, static_cast<double>(c), true), opt));
          return t.meets(made.back());
        };
        if (narrow) {
          narrow_bracket(t.good, t.bad, fraction, probe);
        } else {
          bisect_max_true(t.good + 1, t.bad - 1, probe);
        }
        return made;
      },
      opt, cluster, "bisection");
  // Tasks of one plan may probe the same level; keep one run per id.
  std::map<std::string, RunResult> extra;
  for (auto& v : bisected) {
    for (auto& r : v) extra.emplace(r.id, std::move(r));
  }
  std::vector<RunResult> sorted;
  for (auto& [id, r] : extra) sorted.push_back(std::move(r));
  std::stable_sort(sorted.begin(), sorted.end(), [&](const RunResult& a, const RunResult& b) {
    const std::string pa = a.id.substr(0, a.id.rfind('/')), pb = b.id.substr(0, b.id.rfind('/'));
    return pa != pb ? pa < pb : a.level < b.level;
  });
  for (auto& r : sorted) out.runs.push_back(std::move(r));

  out.plan_readoffs = all_readoffs(e, out.runs);
  out.readoffs = choose_plans(e, out.plan_readoffs);
  return out;
}

}  // namespace agentsim::exp
