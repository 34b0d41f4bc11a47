#include "experiments/run/sweep_outcome.hpp"

#include <algorithm>
#include <cmath>
#include <future>
#include <cstdio>
#include <map>
#include <mutex>
#include <set>

#include "experiments/config/deployment_name.hpp"
#include "experiments/run/bisect.hpp"
#include "experiments/run/plan_ranking.hpp"
#include "experiments/run/rank_correlation.hpp"

namespace agentsim::exp {

namespace {

// concurrency: auto stops doubling a plan once this holds for its runs so far (in level order):
// every speed target and SLO tier is bracketed (the last run is below each), the run could not
// be simulated or completed nothing while busy (overloaded; idle replicas with every agent in a
// gap go on), or throughput has passed its peak (the last two runs both 5%
// below the best before them: one noisy low-concurrency run does not stop the ladder).
bool auto_sweep_done(const Experiment& e, const std::vector<RunResult>& runs) {
  const RunResult& last = runs.back();
  if (!last.skipped.empty() || (last.summary.requests == 0 && last.summary.steps > 0)) return true;
  std::vector<const RunResult*> ordered;
  ordered.reserve(runs.size());
  for (const RunResult& r : runs) ordered.push_back(&r);
  if (passed_peak(ordered) < ordered.size()) return true;
  for (double s : e.readoff_speeds_tok_s) {
    if (!(last.summary.agent_output_tok_s_p50 < s)) return false;
  }
  for (const auto& tier : e.slo_tiers) {
    if (meets_slo(last, tier)) return false;
  }
  return true;
}

// The ladder 1, 2, 4, ... (workload.levels) run round by round for the plans still open, so each
// round's runs (or their pods) spread over every rank and thread; plan-major order.
std::vector<RunResult> auto_sweep(const Experiment& e, const wl::Trace& sessions, const ExecOptions& opt,
                                  const SweepRanks& ranks, std::vector<int> open) {
  std::vector<std::vector<RunResult>> per_plan(e.plans.size());
  for (double level : e.workload.levels) {
    if (open.empty()) break;
    std::vector<SweepPoint> round;
    round.reserve(open.size());
    for (const int plan : open) round.push_back(make_point(e, plan, level));
    auto made = run_points(e, sessions, round, opt, ranks, "sweep");
    std::vector<int> still;
    for (std::size_t i = 0; i < open.size(); ++i) {
      auto& runs = per_plan[static_cast<std::size_t>(open[i])];
      runs.push_back(std::move(made[i]));
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

// One plan's ladder as one task, each level after the one before (the same runs as auto_sweep
// or a fixed list gives it): for a plan simulated beside other tasks.
std::vector<RunResult> plan_ladder(const Experiment& e, const wl::Trace& sessions, const ExecOptions& opt, int plan) {
  std::vector<RunResult> runs;
  for (double level : e.workload.levels) {
    runs.push_back(cached_run(e, sessions, make_point(e, plan, level), opt));
    if (e.workload.auto_concurrency && auto_sweep_done(e, runs)) break;
  }
  return runs;
}

// One bisection between two swept levels: `good` meets the target, `bad` (the next level) does not.
struct Bisection {
  int plan = 0;
  long long good = 0, bad = 0;
  double m_good = 0, m_bad = 0;                      // margins at good and bad (auto only)
  std::function<double(const RunResult&)> margin;  // >= 0: the target is met
};

// concurrency: auto refines the plan each (system, target) chose on the ladder: its bracket
// narrowed to within workload.concurrency_tolerance (2%) of concurrency by at most
// workload.max_probes interpolated probes (bisect.hpp). So is every other plan of the system whose
// bracket could beat the chosen figure: for an SLO tier (a ladder figure is its bracket's floor)
// its first failing level over the power of its last meeting run, a plan met at 512 and not at
// 1024 agents not being ranked below one met at 530 before it is narrowed; for a speed target (a
// ladder figure interpolates its bracket's two runs) the better of those two runs' tokens per MW.
std::vector<Bisection> auto_refinements(const Experiment& e, const std::vector<RunResult>& runs) {
  std::vector<Bisection> tasks;
  // The bracket of `plan`'s ladder for `margin`: its task when it is wider than the tolerance,
  // and the best figure it allows (`upper`: agents per MW for an SLO tier, total tokens/s per MW
  // for a speed target).
  const auto bracket = [&](int plan, const std::function<double(const RunResult&)>& margin, double* upper,
                           bool speed = false) {
    const auto ladder = plan_runs(runs, plan_prefix(e, plan), false);
    for (std::size_t i = 1; i < ladder.size(); ++i) {
      const double a = margin(*ladder[i - 1]), b = margin(*ladder[i]);
      if (a >= 0 && b < 0) {
        const auto lo = static_cast<long long>(ladder[i - 1]->level), hi = static_cast<long long>(ladder[i]->level);
        if (upper != nullptr) {
          *upper = speed ? std::max(per_mw(ladder[i - 1]->summary.total_tok_s, *ladder[i - 1]),
                                    per_mw(ladder[i]->summary.total_tok_s, *ladder[i]))
                         : per_mw(static_cast<double>(hi), *ladder[i - 1]);
        }
        const double tol = e.workload.concurrency_tolerance;
        if (e.workload.max_probes > 0 && hi - lo > std::max<long long>(1, static_cast<long long>(tol * static_cast<double>(lo)))) {
          tasks.push_back({plan, lo, hi, a, b, margin});
        }
        return;
      }
    }
  };
  for (const ReadoffRow& row : choose_plans(e, all_readoffs(e, runs))) {
    if (row.plan < 0 || !row.in_swept_range || row.target_kind == "single_agent") continue;
    std::function<double(const RunResult&)> margin;
    if (row.target_kind == "speed") {
      const double s = row.target_agent_tok_s;
      margin = [s](const RunResult& r) {
        const double m = r.summary.agent_output_tok_s_p50 / s - 1;
        return r.skipped.empty() && !std::isnan(m) ? m : -1.0;
      };
    } else {
      for (const SloTier& tier : e.slo_tiers) {
        if (tier.agent_tok_s == row.target_agent_tok_s) margin = [tier](const RunResult& r) { return slo_margin(r, tier); };
      }
    }
    const bool speed = row.target_kind == "speed";
    const double chosen = speed ? row.total_tok_s_per_mw : row.agents_per_mw;
    bracket(row.plan, margin, nullptr);
    const int system = e.plans[static_cast<std::size_t>(row.plan)].system;
    for (std::size_t p = 0; p < e.plans.size(); ++p) {
      if (static_cast<int>(p) == row.plan || e.plans[p].system != system || !e.plans[p].pruned.empty()) continue;
      const std::size_t before = tasks.size();
      double upper = 0;
      bracket(static_cast<int>(p), margin, &upper, speed);
      if (tasks.size() > before && !(upper > chosen)) tasks.pop_back();  // cannot beat the chosen plan
    }
  }
  return tasks;
}

// The bisections that narrow the runs' brackets. Auto: each target's chosen plan (and each plan
// that could beat it) within workload.concurrency_tolerance. A fixed list: each SLO tier the sweep
// brackets, to the exact concurrency. Each depends on its own system's runs only.
std::vector<Bisection> refinements(const Experiment& e, const std::vector<RunResult>& runs) {
  if (e.workload.auto_concurrency) return auto_refinements(e, runs);
  std::vector<Bisection> tasks;
  if (e.workload.mode != ReplayMode::kClosedLoop) return tasks;
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    if (!e.plans[p].pruned.empty()) continue;
    const auto plan = plan_runs(runs, plan_prefix(e, static_cast<int>(p)), false);
    for (const auto& tier : e.slo_tiers) {
      const SloBracket b = slo_bracket(plan, tier);
      if (b.bracketed && b.hi - b.lo > 1) {
        tasks.push_back({static_cast<int>(p), b.lo, b.hi, 0, 0,
                         [tier](const RunResult& r) { return meets_slo(r, tier) ? 1.0 : -1.0; }});
      }
    }
  }
  return tasks;
}

// Bisection probes run once per (plan, level) in a process: two targets of one plan (a speed
// and an SLO tier) probing the same level on two threads share one simulation instead of
// running it twice (the runs are deterministic, so which thread runs it changes nothing).
class ProbeOnce {
 public:
  RunResult run(int plan, long long level, const std::function<RunResult()>& simulate) {
    std::promise<RunResult> mine;
    std::shared_future<RunResult> result;
    bool owner = false;
    {
      const std::lock_guard<std::mutex> lock(mu_);
      auto [it, fresh] = runs_.try_emplace({plan, level});
      if (fresh) {
        it->second = mine.get_future().share();
        owner = true;
      }
      result = it->second;
    }
    if (owner) {
      try {
        mine.set_value(simulate());
      } catch (...) {
        mine.set_exception(std::current_exception());
      }
    }
    return result.get();
  }

 private:
  std::mutex mu_;
  std::map<std::pair<int, long long>, std::shared_future<RunResult>> runs_;
};


// The sweep of `plans`: the auto ladder, or every listed level.
std::vector<RunResult> sweep_plans(const Experiment& e, const wl::Trace& sessions, const ExecOptions& opt,
                                   const SweepRanks& ranks, const std::vector<int>& plans) {
  if (e.workload.auto_concurrency) return auto_sweep(e, sessions, opt, ranks, plans);
  std::vector<SweepPoint> points;
  for (const int p : plans) {
    for (double level : e.workload.levels) points.push_back(make_point(e, p, level));
  }
  return run_points(e, sessions, points, opt, ranks, "sweep");
}

// search: auto: per system, the plans in bound order (rank_plans' ranking).
std::vector<std::vector<int>> rankings(const Experiment& e) {
  std::vector<std::vector<int>> out(e.systems.size());
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    if (e.plans[p].bound_rank > 0) out[static_cast<std::size_t>(e.plans[p].system)].push_back(static_cast<int>(p));
  }
  for (auto& r : out) {
    std::stable_sort(r.begin(), r.end(), [&](int a, int b) {
      return e.plans[static_cast<std::size_t>(a)].bound_rank < e.plans[static_cast<std::size_t>(b)].bound_rank;
    });
  }
  return out;
}

// Per system, the next plan down the ranking to simulate: while the best of the plans simulated
// from the top of the ranking is the last of them, at most kAutoSearchDeeper beyond the first.
std::vector<int> deeper_plans(const Experiment& e, const std::vector<ReadoffRow>& rows, std::vector<int>& taken) {
  std::vector<int> more;
  const auto ranked = rankings(e);
  for (std::size_t sys = 0; sys < ranked.size(); ++sys) {
    const auto& r = ranked[sys];
    std::size_t n = 0;  // plans simulated from the top without a gap
    while (n < r.size() && !e.plans[static_cast<std::size_t>(r[n])].held_back) ++n;
    if (n == 0 || n == r.size() || taken[sys] >= kAutoSearchDeeper) continue;
    std::size_t best = 0;
    for (std::size_t i = 1; i < n; ++i) {
      if (simulated_score(e, r[i], rows) > simulated_score(e, r[best], rows)) best = i;
    }
    if (best + 1 < n) continue;  // a simulated plan ranks below the best
    more.push_back(r[n]);
    ++taken[sys];
  }
  return more;
}

// The plans held back on one system that another system of the experiment chose for a read-off
// (the same deployment, by name: as many replicas of the same plan on as many GPUs). Simulating
// them reads every system off with each plan that decided another's figure, so a system at least
// another's equal on every peak never reads lower for want of a plan the search did not try.
std::vector<int> peer_plans(const Experiment& e, const std::vector<ReadoffRow>& rows) {
  std::set<std::string> chosen;
  for (const ReadoffRow& r : choose_plans(e, rows)) {
    if (r.plan >= 0) chosen.insert(r.deployment);
  }
  std::vector<int> out;
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    if (e.plans[p].held_back && chosen.contains(deployment_name(e, e.plans[p]))) out.push_back(static_cast<int>(p));
  }
  return out;
}

}  // namespace

double simulated_score(const Experiment& e, int plan, const std::vector<ReadoffRow>& plan_readoffs, bool output) {
  const char* kind = !e.readoff_speeds_tok_s.empty() ? "speed" : !e.slo_tiers.empty() ? "slo" : "single_agent";
  for (const ReadoffRow& row : plan_readoffs) {
    if (row.plan != plan || row.target_kind != kind) continue;
    const double v = row.target_kind == "speed" ? (output ? row.output_tok_s_per_mw : row.total_tok_s_per_mw)
                     : row.target_kind == "slo" ? row.agents_per_mw
                                                : row.target_agent_tok_s;
    return std::isnan(v) ? -1.0 : v;
  }
  return -1.0;
}

std::string first_choice_cost(const std::vector<double>& score) {
  const double best = score.empty() ? -1.0 : *std::max_element(score.begin(), score.end());
  if (best <= 0) return "no simulated plan read off";
  if (score.front() >= best) return "the bound's first choice is the best simulated";
  if (score.front() < 0) return "the bound's first choice did not read off";
  char buf[96];
  std::snprintf(buf, sizeof buf, "the bound's first choice reads off %.1f%% below the best simulated",
                100.0 * (1.0 - score.front() / best));
  return buf;
}

std::string ranking_report(const Experiment& e, const std::vector<ReadoffRow>& plan_readoffs) {
  if (!e.search_auto) return "";
  std::string out;
  const auto ranked = rankings(e);
  char buf[512];
  auto g3 = [](double v) {
    char t[32];
    std::snprintf(t, sizeof t, "%.3g", v);
    return std::string(t);
  };
  for (std::size_t sys = 0; sys < ranked.size(); ++sys) {
    std::vector<int> sim;
    int splits = 0, simulated_splits = 0;
    for (const int p : ranked[sys]) {
      const Plan& plan = e.plans[static_cast<std::size_t>(p)];
      splits += plan.prefill_replicas > 0 ? 1 : 0;
      if (plan.pruned.empty()) {
        sim.push_back(p);
        simulated_splits += plan.prefill_replicas > 0 ? 1 : 0;
      }
    }
    if (ranked[sys].empty()) continue;
    // bound: per watt, as the search ranks; plans it prices alike share a mid-rank (the tie-break
    // that orders them for the search is not a prediction). It bounds output tokens, so it is
    // compared with the simulated output per MW at the read-off (`output`), and, as the search
    // is judged, with the read-off itself (`score`: total per MW, which adds the window's input
    // tokens, a sample of the agents' contexts, noisy where few agents are at work).
    std::vector<double> bound, score, output;
    for (const int p : sim) {
      bound.push_back(bound_per_w(e.plans[static_cast<std::size_t>(p)]));
      score.push_back(simulated_score(e, p, plan_readoffs));
      output.push_back(simulated_score(e, p, plan_readoffs, true));
    }
    const std::vector<double> sim_rank = descending_ranks(score);
    auto shown = [&](double rho) { return std::isnan(rho) ? std::string("n/a (fewer than two distinct)") : g3(rho); };
    const double rho = spearman(bound, score), rho_output = spearman(bound, output);
    std::snprintf(buf, sizeof buf,
                  "ranking %s: %zu plans ranked by the bound (%d prefill/decode splits), %zu simulated (%d splits); "
                  "Spearman of bound against simulated rank: %s",
                  e.systems[sys].name.c_str(), ranked[sys].size(), splits, sim.size(), simulated_splits,
                  shown(rho).c_str());
    out += buf;
    if (!e.readoff_speeds_tok_s.empty()) out += ", against simulated output tok/s per MW: " + shown(rho_output);
    out += "; " + first_choice_cost(score) + "\n";
    for (std::size_t i = 0; i < sim.size(); ++i) {
      const Plan& plan = e.plans[static_cast<std::size_t>(sim[i])];
      std::snprintf(buf, sizeof buf, "  bound #%-3d simulated #%-4s %-48s bound %.4g output tok/s, read-off %s",
                    plan.bound_rank, g3(sim_rank[i]).c_str(), deployment_name(e, plan).c_str(),
                    plan.bound_tok_s, score[i] < 0 ? "none" : g3(score[i]).c_str());
      out += buf;
      if (!e.readoff_speeds_tok_s.empty() && output[i] >= 0) out += " (output " + g3(output[i]) + " tok/s per MW)";
      if (plan.peer_choice) out += "; another system's choice";
      out += "\n";
    }
  }
  return out;
}

SweepOutcome run_experiment(Experiment& e, const wl::Trace& sessions, const ExecOptions& opt,
                            const SweepRanks& ranks) {
  SweepOutcome out;
  std::vector<int> open;
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    if (e.plans[p].pruned.empty()) open.push_back(static_cast<int>(p));
  }
  out.runs = sweep_plans(e, sessions, opt, ranks, open);

  const bool narrow = e.workload.auto_concurrency;
  ProbeOnce once;
  auto bisect = [&](const Bisection& t) {
    std::vector<RunResult> made;
    auto probe = [&](long long c) {
      made.push_back(once.run(t.plan, c, [&] {
        return cached_run(e, sessions, make_point(e, t.plan, static_cast<double>(c), true), opt);
      }));
      return t.margin(made.back());
    };
    if (narrow) {
      narrow_bracket_interpolated(t.good, t.m_good, t.bad, t.m_bad, e.workload.concurrency_tolerance, probe,
                                  e.workload.max_probes);
    } else {
      bisect_max_true(t.good + 1, t.bad - 1, [&](long long c) { return probe(c) >= 0; });
    }
    return made;
  };
  // search: auto simulates plans further down a system's ranking while its best is the last
  // simulated (deeper_plans). A system with none left to simulate has its final ladders: its
  // bisections run beside the other systems' deeper ladders, in one batch of tasks (a ladder, like
  // a bisection, one task: its pods on the threads of one rank). Once every bisection has run, the
  // narrowed read-offs are checked again: where they put a system's best last, it goes deeper;
  // else each system simulates the plans other systems chose that it held back (peer_plans).
  std::vector<std::vector<RunResult>> bisected;
  std::vector<int> taken(e.systems.size(), 0);
  std::vector<bool> settled(e.systems.size(), false);
  // Tasks of one plan may probe the same level: the bisections' runs, one per id, in plan and
  // level order (moved out of `bisected` when `take`, else copied).
  const auto bisection_runs = [&](bool take) {
    std::map<std::string, RunResult> unique;
    for (auto& v : bisected) {
      for (auto& r : v) {
        if (take) {
          unique.emplace(r.id, std::move(r));
        } else {
          unique.emplace(r.id, r);
        }
      }
    }
    std::vector<RunResult> sorted;
    sorted.reserve(unique.size());
    for (auto& [id, r] : unique) sorted.push_back(std::move(r));
    std::stable_sort(sorted.begin(), sorted.end(), [&](const RunResult& a, const RunResult& b) {
      const std::string pa = a.id.substr(0, a.id.rfind('/')), pb = b.id.substr(0, b.id.rfind('/'));
      return pa != pb ? pa < pb : a.level < b.level;
    });
    return sorted;
  };
  std::vector<int> more = e.search_auto ? deeper_plans(e, all_readoffs(e, out.runs), taken) : std::vector<int>{};
  while (true) {
    std::vector<bool> busy(e.systems.size(), false);
    for (const int p : more) {
      Plan& plan = e.plans[static_cast<std::size_t>(p)];
      plan.pruned.clear();
      plan.held_back = false;
      busy[static_cast<std::size_t>(plan.system)] = true;
    }
    std::vector<Bisection> ready;
    for (Bisection& t : refinements(e, out.runs)) {
      const auto sys = static_cast<std::size_t>(e.plans[static_cast<std::size_t>(t.plan)].system);
      if (!busy[sys] && !settled[sys]) ready.push_back(std::move(t));
    }
    for (std::size_t s = 0; s < settled.size(); ++s) settled[s] = settled[s] || !busy[s];
    auto made = run_sharded(
        more.size() + ready.size(),
        [&](std::size_t i) {
          return i < more.size() ? plan_ladder(e, sessions, opt, more[i]) : bisect(ready[i - more.size()]);
        },
        opt, ranks, more.empty() ? "bisection" : "sweep");
    for (std::size_t i = 0; i < made.size(); ++i) {
      if (i < more.size()) {
        for (RunResult& r : made[i]) out.runs.push_back(std::move(r));
      } else {
        bisected.push_back(std::move(made[i]));
      }
    }
    if (!e.search_auto) break;
    if (!more.empty()) {
      more = deeper_plans(e, all_readoffs(e, out.runs), taken);
      continue;
    }
    std::vector<RunResult> narrowed = out.runs;
    for (RunResult& r : bisection_runs(false)) narrowed.push_back(std::move(r));
    const std::vector<ReadoffRow> rows = all_readoffs(e, narrowed);
    more = deeper_plans(e, rows, taken);
    if (more.empty()) {
      more = peer_plans(e, rows);
      for (const int p : more) e.plans[static_cast<std::size_t>(p)].peer_choice = true;
    }
    if (more.empty()) break;
    for (const int p : more) settled[static_cast<std::size_t>(e.plans[static_cast<std::size_t>(p)].system)] = false;
  }
  for (RunResult& r : bisection_runs(true)) out.runs.push_back(std::move(r));

  out.plan_readoffs = all_readoffs(e, out.runs);
  out.readoffs = choose_plans(e, out.plan_readoffs);
  out.ranking_log = ranking_report(e, out.plan_readoffs);
  attach_error_bands(e, out);
  return out;
}

}  // namespace agentsim::exp
