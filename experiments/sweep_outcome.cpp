#include "experiments/sweep_outcome.hpp"

#include <algorithm>
#include <map>

#include "experiments/bisect.hpp"

namespace agentsim::exp {

SweepOutcome run_experiment(const Experiment& e, const wl::Trace& sessions, const ExecOptions& opt,
                            const Cluster& cluster) {
  SweepOutcome out;
  const std::vector<SweepPoint> points = expand_sweep(e);
  auto sweep = run_sharded(
      points.size(), [&](std::size_t i) { return std::vector<RunResult>{cached_run(e, sessions, points[i], opt)}; },
      opt, cluster, "sweep");
  for (auto& v : sweep) {
    for (auto& r : v) out.runs.push_back(std::move(r));
  }

  // One bisection task per (plan, tier) whose sweep brackets the SLO boundary.
  struct Task {
    int plan;
    SloTier tier;
    SloBracket bracket;
  };
  std::vector<Task> tasks;
  if (e.workload.mode == ReplayMode::kClosedLoop) {
    for (std::size_t p = 0; p < e.plans.size(); ++p) {
      if (!e.plans[p].pruned.empty()) continue;
      const auto runs = plan_runs(out.runs, plan_prefix(e, static_cast<int>(p)), false);
      for (const auto& tier : e.slo_tiers) {
        const SloBracket b = slo_bracket(runs, tier);
        if (b.bracketed && b.hi - b.lo > 1) tasks.push_back({static_cast<int>(p), tier, b});
      }
    }
  }
  auto bisected = run_sharded(
      tasks.size(),
      [&](std::size_t i) {
        const Task& t = tasks[i];
        std::vector<RunResult> made;
        bisect_max_true(t.bracket.lo + 1, t.bracket.hi - 1, [&](long long c) {
          made.push_back(cached_run(e, sessions, make_point(e, t.plan, static_cast<double>(c), true), opt));
          return meets_slo(made.back(), t.tier);
        });
        return made;
      },
      opt, cluster, "bisection");
  // Tiers of one plan may probe the same level; keep one run per id.
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
