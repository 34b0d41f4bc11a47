#include "experiments/output/readoff_table.hpp"
#include "experiments/config/deployment_name.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/metrics/readoff.hpp"

namespace agentsim::exp {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

ReadoffRow blank(const Experiment& e, int plan, const std::string& kind, double target) {
  ReadoffRow row;
  const Plan& p = e.plans[static_cast<std::size_t>(plan)];
  row.system = e.systems[static_cast<std::size_t>(p.system)].name;
  row.deployment = deployment_name(e, p);
  row.plan = plan;
  row.target_kind = kind;
  row.target_agent_tok_s = target;
  row.total_tok_s_per_mw = row.output_tok_s_per_mw = row.agents_per_mw = row.concurrency = kNaN;
  return row;
}

double speed_at(const RunResult& r, int percentile) {
  return percentile == 50 ? r.summary.agent_output_tok_s_p50 : r.summary.agent_output_tok_s_p10;
}
double ttft_at(const RunResult& r, int percentile) {
  if (percentile == 50) return r.summary.ttft_s_p50;
  return percentile == 99 ? r.summary.ttft_s_p99 : r.summary.ttft_s_p90;
}

std::string fmt(const char* f, double a, double b = 0, double c = 0, double d = 0) {
  char buf[160];
  std::snprintf(buf, sizeof buf, f, a, b, c, d);
  return buf;
}

// |slo_margin| bound: a zero speed or TTFT (log ±inf) stays a finite interpolation end.
constexpr double kMaxLogMargin = 20;

}  // namespace

double per_mw(double value, const RunResult& r) {
  return r.power.power_w > 0 ? value / (r.power.power_w * 1e-6) : kNaN;
}

bool meets_slo(const RunResult& r, const SloTier& tier) {
  if (!r.skipped.empty() || r.summary.requests == 0) return false;
  const double speed = speed_at(r, tier.speed_percentile);
  if (!(speed >= tier.agent_tok_s)) return false;  // NaN fails
  if (tier.ttft_s > 0 && !(ttft_at(r, tier.ttft_percentile) <= tier.ttft_s)) return false;
  return true;
}

double slo_margin(const RunResult& r, const SloTier& tier) {
  if (!r.skipped.empty() || r.summary.requests == 0) return -1;
  // Ratios on a log scale: TTFT grows by orders of magnitude past saturation, so a linear margin
  // puts the interpolated boundary next to the meeting end of a bracket.
  double m = std::log(speed_at(r, tier.speed_percentile) / tier.agent_tok_s);
  if (tier.ttft_s > 0) m = std::min(m, std::log(tier.ttft_s / ttft_at(r, tier.ttft_percentile)));
  return std::isnan(m) ? -1 : std::clamp(m, -kMaxLogMargin, kMaxLogMargin);
}

std::string plan_prefix(const Experiment& e, int plan) {
  const Plan& p = e.plans[static_cast<std::size_t>(plan)];
  return e.systems[static_cast<std::size_t>(p.system)].name + "/" + p.label + "/";
}

std::vector<const RunResult*> plan_runs(const std::vector<RunResult>& runs, const std::string& prefix,
                                        bool with_bisection) {
  std::vector<const RunResult*> out;
  for (const auto& r : runs) {
    if (r.skipped.empty() && r.id.rfind(prefix, 0) == 0 && (with_bisection || !r.bisection)) out.push_back(&r);
  }
  std::stable_sort(out.begin(), out.end(), [](const RunResult* a, const RunResult* b) { return a->level < b->level; });
  return out;
}

ReadoffRow speed_readoff(const Experiment& e, int plan, const std::vector<RunResult>& runs, double speed) {
  ReadoffRow row = blank(e, plan, "speed", speed);
  const auto pts = plan_runs(runs, plan_prefix(e, plan), true);
  if (pts.empty()) {
    row.note = "no run of this plan completed";
    return row;
  }
  std::vector<metrics::CurvePoint> total, output, agents;
  for (const RunResult* r : pts) {
    const double s = r->summary.agent_output_tok_s_p50;
    total.push_back({r->level, s, per_mw(r->summary.total_tok_s, *r)});
    output.push_back({r->level, s, per_mw(r->summary.output_tok_s, *r)});
    agents.push_back({r->level, s, per_mw(r->level, *r)});
  }
  const metrics::Readoff t = metrics::read_off_at_speed(total, speed);
  row.in_swept_range = t.in_swept_range;
  row.note = t.note;
  row.concurrency = t.concurrency;
  row.total_tok_s_per_mw = t.value;
  row.output_tok_s_per_mw = metrics::read_off_at_speed(output, speed).value;
  row.agents_per_mw = metrics::read_off_at_speed(agents, speed).value;
  // Every agent still at or above the target after throughput has peaked (queueing caps the
  // decoding batch): the most the plan gives at that speed is its peak, read off there.
  bool all_fast = true;
  for (const RunResult* r : pts) all_fast = all_fast && r->summary.agent_output_tok_s_p50 >= speed;
  // The auto ladder's top run has no run after it to confirm a peak.
  const bool final_run = e.workload.auto_concurrency &&
                         pts.back()->level >= static_cast<double>(e.workload.max_concurrency);
  const std::size_t peak = passed_peak(pts, final_run);
  if (!t.in_swept_range && all_fast && peak < pts.size()) {
    const RunResult& at = *pts[peak];
    row.in_swept_range = true;
    row.concurrency = at.level;
    row.total_tok_s_per_mw = per_mw(at.summary.total_tok_s, at);
    row.output_tok_s_per_mw = per_mw(at.summary.output_tok_s, at);
    row.agents_per_mw = per_mw(at.level, at);
    row.note = fmt("throughput peaks at %g agents (p50 %.0f tok/s per agent) before the speed falls to the target; "
                   "read off at the peak",
                   at.level, at.summary.agent_output_tok_s_p50);
  }
  return row;
}

std::size_t passed_peak(const std::vector<const RunResult*>& runs, bool last_is_final) {
  const std::size_t n = runs.size();
  if (n < 3) return n;
  std::size_t peak = 0;
  for (std::size_t i = 1; i + 1 < n; ++i) {
    if (runs[i]->summary.total_tok_s > runs[peak]->summary.total_tok_s) peak = i;
  }
  const double top = runs[peak]->summary.total_tok_s;
  const double last = runs[n - 1]->summary.total_tok_s;
  if (!(last < 0.95 * top)) return n;
  // Two runs 5% below the peak, one at less than half of it (a collapse is not noise), or the
  // final one.
  const bool two_below = peak + 2 < n && runs[n - 2]->summary.total_tok_s < 0.95 * top;
  return two_below || last < 0.5 * top || last_is_final ? peak : n;
}

ReadoffRow single_agent_readoff(const Experiment& e, int plan, const std::vector<RunResult>& runs) {
  ReadoffRow row = blank(e, plan, "single_agent", kNaN);
  for (const RunResult* r : plan_runs(runs, plan_prefix(e, plan), true)) {
    if (r->level != 1) continue;
    row.target_agent_tok_s = r->summary.agent_output_tok_s_p50;
    row.in_swept_range = !std::isnan(row.target_agent_tok_s);
    row.concurrency = 1;
    row.total_tok_s_per_mw = per_mw(r->summary.total_tok_s, *r);
    row.output_tok_s_per_mw = per_mw(r->summary.output_tok_s, *r);
    row.agents_per_mw = per_mw(1, *r);
    row.note = row.in_swept_range ? "p50 per-agent speed of one agent alone" : "the concurrency-1 run completed no request";
    return row;
  }
  row.note = "no concurrency-1 run: add 1 to workload.concurrency (or use auto)";
  return row;
}

SloBracket slo_bracket(const std::vector<const RunResult*>& sweep, const SloTier& tier) {
  SloBracket b;
  for (std::size_t i = 0; i < sweep.size(); ++i) {
    if (meets_slo(*sweep[i], tier)) continue;
    if (i == 0) return b;
    b.bracketed = true;
    b.lo = static_cast<long long>(sweep[i - 1]->level);
    b.hi = static_cast<long long>(sweep[i]->level);
    return b;
  }
  return b;
}

ReadoffRow slo_readoff(const Experiment& e, int plan, const std::vector<RunResult>& runs, const SloTier& tier) {
  ReadoffRow row = blank(e, plan, "slo", tier.agent_tok_s);
  const std::string prefix = plan_prefix(e, plan);
  const auto sweep = plan_runs(runs, prefix, false);
  if (sweep.empty()) {
    row.note = "no run of this plan completed";
    return row;
  }
  const SloBracket b = slo_bracket(sweep, tier);
  const RunResult* at = nullptr;
  if (b.bracketed) {
    // Bisection only ever raises its lower bound to a meeting run, so its answer is the
    // largest meeting concurrency below the first failing swept level.
    const auto probed = plan_runs(runs, prefix, true);
    for (const RunResult* r : probed) {
      if (r->level >= static_cast<double>(b.lo) && r->level < static_cast<double>(b.hi) && meets_slo(*r, tier)) at = r;
    }
    // The final bracket: the read-off's run and the first failing run above it (the boundary lies
    // between them; the read-off is its conservative end).
    double failed = static_cast<double>(b.hi);
    for (const RunResult* r : probed) {
      if (at && r->level > at->level && r->level < failed && !meets_slo(*r, tier)) failed = r->level;
    }
    row.in_swept_range = true;
    row.note = at && failed < static_cast<double>(b.hi)
                   ? fmt("met at %g agents, not at %g (bisection between %g and %g agents)", at->level, failed,
                         static_cast<double>(b.lo), static_cast<double>(b.hi))
                   : fmt("bisection between %g and %g agents", static_cast<double>(b.lo), static_cast<double>(b.hi));
  } else if (meets_slo(*sweep.front(), tier)) {
    at = sweep.back();
    row.lower_bound = true;
    row.note = fmt("SLO still met at the largest swept concurrency (%g agents): at least this many; sweep higher",
                   sweep.back()->level);
  } else {
    row.note = fmt("SLO not met even at the smallest swept concurrency (%g agents)", sweep.front()->level);
  }
  if (at) {
    row.concurrency = at->level;
    row.total_tok_s_per_mw = per_mw(at->summary.total_tok_s, *at);
    row.output_tok_s_per_mw = per_mw(at->summary.output_tok_s, *at);
    row.agents_per_mw = per_mw(at->level, *at);
  }
  return row;
}

std::vector<ReadoffRow> all_readoffs(const Experiment& e, const std::vector<RunResult>& runs) {
  std::vector<ReadoffRow> out;
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    const int plan = static_cast<int>(p);
    if (!e.plans[p].pruned.empty()) {
      for (double s : e.readoff_speeds_tok_s) {
        ReadoffRow row = blank(e, plan, "speed", s);
        row.note = "plan pruned: " + e.plans[p].pruned;
        out.push_back(row);
      }
      for (const auto& t : e.slo_tiers) {
        ReadoffRow row = blank(e, plan, "slo", t.agent_tok_s);
        row.note = "plan pruned: " + e.plans[p].pruned;
        out.push_back(row);
      }
      if (e.workload.mode == ReplayMode::kClosedLoop) {
        ReadoffRow row = blank(e, plan, "single_agent", kNaN);
        row.note = "plan pruned: " + e.plans[p].pruned;
        out.push_back(row);
      }
      continue;
    }
    std::string skipped;
    for (const auto& r : runs) {
      if (skipped.empty() && !r.skipped.empty() && r.id.rfind(plan_prefix(e, plan), 0) == 0) skipped = r.skipped;
    }
    for (double s : e.readoff_speeds_tok_s) {
      out.push_back(speed_readoff(e, plan, runs, s));
      if (!skipped.empty() && !out.back().in_swept_range) out.back().note = "run skipped: " + skipped;
    }
    for (const auto& t : e.slo_tiers) {
      out.push_back(e.workload.mode == ReplayMode::kClosedLoop ? slo_readoff(e, plan, runs, t)
                                                               : blank(e, plan, "slo", t.agent_tok_s));
      if (e.workload.mode != ReplayMode::kClosedLoop) out.back().note = "SLO read-offs need a closed-loop sweep";
      if (!skipped.empty() && !out.back().in_swept_range) out.back().note = "run skipped: " + skipped;
    }
    if (e.workload.mode == ReplayMode::kClosedLoop) {
      out.push_back(single_agent_readoff(e, plan, runs));
      if (!skipped.empty() && !out.back().in_swept_range) out.back().note = "run skipped: " + skipped;
    }
  }
  return out;
}

std::vector<ReadoffRow> choose_plans(const Experiment& e, const std::vector<ReadoffRow>& all) {
  std::vector<ReadoffRow> out;
  const std::size_t targets = e.readoff_speeds_tok_s.size() + e.slo_tiers.size() +
                              (e.workload.mode == ReplayMode::kClosedLoop ? 1 : 0);
  auto score = [](const ReadoffRow& r) {
    const double v = r.target_kind == "speed"  ? r.total_tok_s_per_mw
                     : r.target_kind == "slo" ? r.agents_per_mw
                                              : r.target_agent_tok_s;  // single_agent: the fastest
    return std::isnan(v) ? -1.0 : v;
  };
  // In-range figures beat out-of-range ones, but for an SLO floor (a plan still meeting the tier at
  // its largest swept concurrency) that already exceeds them; then the larger figure; then the
  // earlier plan.
  auto better = [&](const ReadoffRow& r, const ReadoffRow* than) {
    if (!than) return true;
    if (r.in_swept_range == than->in_swept_range) return score(r) > score(*than);
    if (r.in_swept_range) return !than->lower_bound || score(r) >= score(*than);
    return r.lower_bound && score(r) > score(*than);
  };
  for (std::size_t s = 0; s < e.systems.size(); ++s) {
    for (std::size_t t = 0; t < targets; ++t) {
      const ReadoffRow *best = nullptr, *second = nullptr;
      for (std::size_t i = 0; i < all.size(); ++i) {
        const ReadoffRow& r = all[i];
        if (e.plans[static_cast<std::size_t>(r.plan)].system != static_cast<int>(s)) continue;
        if (i % targets != t) continue;
        if (better(r, best)) {
          second = best;
          best = &r;
        } else if (better(r, second)) {
          second = &r;
        }
      }
      if (!best) continue;
      out.push_back(*best);
      if (second && second->in_swept_range) out.back().runner_up = second->deployment;
    }
  }
  return out;
}

}  // namespace agentsim::exp
