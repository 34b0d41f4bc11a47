#include "experiments/run/sweep.hpp"
#include "experiments/config/deployment_name.hpp"

#include <cstdio>

#include "experiments/run/resolve_run.hpp"
#include "sim/core/format_g.hpp"
#include "sim/core/rng.hpp"

namespace agentsim::exp {

namespace {

std::string level_text(double level) { return core::format_g(level); }

}  // namespace

SweepPoint make_point(const Experiment& e, int plan, double level, bool bisection) {
  const Plan& p = e.plans[static_cast<std::size_t>(plan)];
  SweepPoint s;
  s.plan = plan;
  s.level = level;
  s.bisection = bisection;
  s.id = e.systems[static_cast<std::size_t>(p.system)].name + "/" + p.label + "/" + level_text(level);
  s.seed = core::derive_seed(e.seed, "sweep/level/" + level_text(level));
  return s;
}

std::vector<SweepPoint> expand_sweep(const Experiment& e) {
  std::vector<SweepPoint> out;
  for (std::size_t i = 0; i < e.plans.size(); ++i) {
    if (!e.plans[i].pruned.empty()) continue;
    for (double level : e.workload.levels) out.push_back(make_point(e, static_cast<int>(i), level));
  }
  return out;
}

RunResult run_sweep_point(const Experiment& e, const wl::Trace& sessions, const SweepPoint& p, int threads) {
  const Plan& plan = e.plans[static_cast<std::size_t>(p.plan)];
  RunResult r;
  try {
    r = run_point(e, resolve_run(e, plan, sessions.block_size_tokens), sessions, p.level, p.seed, threads);
  } catch (const core::Error& err) {
    r = RunResult{};
    r.level = p.level;
    r.concurrency = e.workload.mode == ReplayMode::kClosedLoop ? static_cast<int>(p.level) : 0;
    r.skipped = err.what();
  }
  r.id = p.id;
  r.system = e.systems[static_cast<std::size_t>(plan.system)].name;
  r.deployment = deployment_name(e, plan);
  r.seed = p.seed;
  r.bisection = p.bisection;
  return r;
}

}  // namespace agentsim::exp
