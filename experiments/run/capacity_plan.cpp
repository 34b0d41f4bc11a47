#include "experiments/run/capacity_plan.hpp"
#include "experiments/config/deployment_name.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "experiments/run/bisect.hpp"
#include "experiments/output/readoff_table.hpp"
#include "experiments/run/prediction_bands.hpp"
#include "experiments/run/resolve_run.hpp"

namespace agentsim::exp {

long long best_meeting_concurrency(const std::vector<RunResult>& runs, const SloTier& slo) {
  long long best = 0;
  for (const auto& r : runs) {
    if (meets_slo(r, slo)) best = std::max(best, static_cast<long long>(r.level));
  }
  return best;
}

std::string band_note(const CapacityAnswer& a) {
  if (a.band_regime.empty()) return "";
  std::string note = "band: " + a.band_regime;
  // The band is the point re-sized at the regime's 10th and 90th percentile errors; when both
  // have one sign the point lies outside it, and the sign says which way the measured runs missed.
  if (a.systems_lo > 0 && a.systems < a.systems_lo) {
    note += " (above the point: the regime's measured runs were slower than predicted)";
  } else if (a.systems_hi > 0 && a.systems > a.systems_hi) {
    note += " (below the point: the regime's measured runs were faster than predicted)";
  }
  return note;
}

CapacityAnswer size_plan(const Experiment& e, int plan, const RunResult& at, const CapacityQuestion& q) {
  const Plan& p = e.plans[static_cast<std::size_t>(plan)];
  const hw::System& s = e.systems[static_cast<std::size_t>(p.system)];
  CapacityAnswer a;
  a.system = s.name;
  a.deployment = deployment_name(e, p);
  a.feasible = true;
  a.agents_per_replica = static_cast<long long>(at.level);
  // GPUs of one sized unit: the experiment's replicas x the plan's devices (tp x dp x pp).
  const long long per_replica = std::max(1, resolve_run(e, p).accelerators());
  a.replicas = (q.agents + a.agents_per_replica - 1) / a.agents_per_replica;
  a.accelerators = a.replicas * per_replica;
  const long long replicas_per_system = std::max<long long>(1, s.accelerators / per_replica);
  // A unit over several systems (a multi-node replica) occupies whole systems.
  const long long systems_per_unit = (per_replica + s.accelerators - 1) / std::max(1, s.accelerators);
  const auto systems_for = [&](long long replicas) {
    return systems_per_unit > 1 ? replicas * systems_per_unit : (replicas + replicas_per_system - 1) / replicas_per_system;
  };
  a.systems = systems_for(a.replicas);
  const PredictionBand band = band_for(e, s, at.summary.mean_batch_sequences);
  a.band_regime = band.regime;
  const auto systems_at = [&](double factor) -> long long {
    if (!std::isfinite(factor) || factor <= 0) return 0;
    const double per = std::max(1e-9, static_cast<double>(a.agents_per_replica) * factor);
    const auto replicas = static_cast<long long>(std::ceil(static_cast<double>(q.agents) / per));
    return systems_for(replicas);
  };
  a.systems_lo = systems_at(band.throughput_hi);  // more throughput per replica: fewer systems
  a.systems_hi = systems_at(band.throughput_lo);
  if (s.power.rack_nameplate_w > 0) {
    a.racks = a.systems;  // the system is a rack (NVL72)
  } else {
    // Held at 10^12 systems a rack: a what-if budget of 10^30 W would overflow the integer.
    const long long per_rack =
        std::max<long long>(1, static_cast<long long>(std::min(1e12, q.rack_power_w / s.power.nameplate_w)));
    a.racks = (a.systems + per_rack - 1) / per_rack;
  }
  // Serving accelerators draw what they drew in the run; the rest of each system idles.
  const double idle_w = s.accelerator.idle_w;
  const double active_w = serving_accelerator_w(at.power, idle_w);
  const double slots = static_cast<double>(a.systems * s.accelerators);
  const double mean_w = (static_cast<double>(a.accelerators) * active_w +
                         (slots - static_cast<double>(a.accelerators)) * idle_w) / slots;
  a.runtime_mw = static_cast<double>(a.systems) * hw::system_power(s, mean_w, e.power).facility_w * 1e-6;
  a.provisioned_mw = static_cast<double>(a.systems) * hw::provisioned_power_w(s, e.power) * 1e-6;
  if (a.agents_per_replica >= q.max_agents_per_replica) {
    a.reason = "SLO still met at the search bound of " + std::to_string(q.max_agents_per_replica) + " agents per replica";
  }
  return a;
}

std::vector<CapacityAnswer> capacity_plan(const Experiment& e, const wl::Trace& sessions, const CapacityQuestion& q,
                                          const ExecOptions& opt, const SweepRanks& ranks) {
  std::vector<int> plans;
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    if (e.plans[p].pruned.empty()) plans.push_back(static_cast<int>(p));
  }
  // Per plan: double the agents until the SLO fails (or the bound), then bisect.
  auto searched = run_sharded(
      plans.size(),
      [&](std::size_t i) {
        std::vector<RunResult> made;
        auto probe = [&](long long c) {
          made.push_back(cached_run(e, sessions, make_point(e, plans[i], static_cast<double>(c)), opt));
          return meets_slo(made.back(), q.slo);
        };
        long long good = 0, c = 1;
        while (c <= q.max_agents_per_replica && probe(c)) {
          good = c;
          if (c == q.max_agents_per_replica) return made;
          c = std::min(c * 2, q.max_agents_per_replica);
        }
        if (good > 0 && c - good > 1) bisect_max_true(good + 1, c - 1, probe);
        return made;
      },
      opt, ranks, "plan");

  std::vector<CapacityAnswer> out;
  for (std::size_t s = 0; s < e.systems.size(); ++s) {
    CapacityAnswer best;
    best.system = e.systems[s].name;
    std::string reasons;
    for (std::size_t i = 0; i < plans.size(); ++i) {
      if (e.plans[static_cast<std::size_t>(plans[i])].system != static_cast<int>(s)) continue;
      const auto& runs = searched[i];
      const long long c = best_meeting_concurrency(runs, q.slo);
      if (c == 0) {
        std::string why = "no run";
        if (!runs.empty() && !runs.front().skipped.empty()) {
          why = runs.front().skipped;
        } else if (!runs.empty()) {
          const auto& sm = runs.front().summary;
          char buf[200];
          std::snprintf(buf, sizeof buf, "SLO not met with one agent (p%d speed %.1f tok/s, p%d TTFT %.2f s)",
                        q.slo.speed_percentile,
                        q.slo.speed_percentile == 50 ? sm.agent_output_tok_s_p50 : sm.agent_output_tok_s_p10,
                        q.slo.ttft_percentile,
                        q.slo.ttft_percentile == 50 ? sm.ttft_s_p50 : q.slo.ttft_percentile == 99 ? sm.ttft_s_p99 : sm.ttft_s_p90);
          why = buf;
        }
        reasons += (reasons.empty() ? "" : "; ") + e.plans[static_cast<std::size_t>(plans[i])].label + ": " + why;
        continue;
      }
      const RunResult* at = nullptr;
      for (const auto& r : runs) {
        if (static_cast<long long>(r.level) == c) at = &r;
      }
      const CapacityAnswer a = size_plan(e, plans[i], *at, q);
      if (!best.feasible || a.runtime_mw < best.runtime_mw) best = a;
    }
    for (const auto& p : e.plans) {
      if (p.system == static_cast<int>(s) && !p.pruned.empty()) {
        reasons += (reasons.empty() ? "" : "; ") + p.label + ": pruned (" + p.pruned + ")";
      }
    }
    if (!best.feasible) best.reason = reasons.empty() ? "no plan" : reasons;
    out.push_back(best);
  }
  return out;
}

}  // namespace agentsim::exp
