#include "experiments/run/plan_ranking.hpp"

#include <algorithm>
#include <cstdio>
#include <vector>

#include "experiments/run/resolve_run.hpp"
#include "sim/serving/step_coster.hpp"

namespace agentsim::exp {

PlanBound plan_bound(const Experiment& e, const Plan& plan, double context_tokens, double agent_tok_s,
                     long long trace_block_tokens) {
  const RunSpec spec = resolve_run(e, plan, trace_block_tokens);
  const serving::StepCoster coster(e.model, spec.system, spec.replica.cost);
  const auto context = static_cast<long long>(context_tokens);
  // A decoding sequence emits this many tokens per step (speculative decoding > 1).
  const double tokens_per_step = spec.replica.cost.spec.enabled() ? spec.replica.cost.spec.expected_tokens_per_step() : 1.0;
  auto step_s = [&](long long batch) {
    serving::StepBatch b;
    b.decodes.assign(static_cast<std::size_t>(batch), serving::DecodeItem{context});
    return coster.price(b).total_s;
  };
  const long long kv_batch =
      context > 0 ? spec.replica.kv_capacity_tokens / context : static_cast<long long>(spec.replica.max_sequences);
  const long long most = std::min<long long>(spec.replica.max_sequences, kv_batch);
  auto fast_enough = [&](long long batch) { return tokens_per_step / step_s(batch) >= agent_tok_s; };
  PlanBound out;
  if (most < 1) return out;
  out.single_agent_tok_s = tokens_per_step / step_s(1);
  if (out.single_agent_tok_s < agent_tok_s) return out;
  long long good = 1, bad = most + 1;
  while (bad - good > 1) {
    const long long mid = good + (bad - good) / 2;
    (fast_enough(mid) ? good : bad) = mid;
  }
  out.batch = good;
  out.step_s = step_s(good);
  out.system_tok_s = static_cast<double>(spec.replicas()) * static_cast<double>(good) * tokens_per_step / out.step_s;
  return out;
}

void rank_plans(Experiment& e, const wl::Trace& sessions) {
  if (!e.search_auto) return;
  double input = 0, turns = 0;
  for (const auto& s : sessions.sessions) {
    for (const auto& t : s.turns) {
      input += static_cast<double>(t.input_tokens);
      turns += 1;
    }
  }
  const double context = turns > 0 ? input / turns : 0;
  const double speed = e.readoff_speeds_tok_s.empty()
                           ? 1.0
                           : *std::min_element(e.readoff_speeds_tok_s.begin(), e.readoff_speeds_tok_s.end());
  for (std::size_t sys = 0; sys < e.systems.size(); ++sys) {
    std::vector<std::pair<double, std::size_t>> ranked;  // (bound, plan index)
    std::vector<PlanBound> bounds(e.plans.size());
    std::size_t fastest = e.plans.size();  // the best single-agent bound (the single-agent read-off)
    for (std::size_t p = 0; p < e.plans.size(); ++p) {
      if (e.plans[p].system != static_cast<int>(sys) || !e.plans[p].pruned.empty()) continue;
      bounds[p] = plan_bound(e, e.plans[p], context, speed, sessions.block_size_tokens);
      ranked.emplace_back(bounds[p].system_tok_s, p);
      if (fastest == e.plans.size() || bounds[p].single_agent_tok_s > bounds[fastest].single_agent_tok_s) fastest = p;
    }
    // Highest bound first; ties keep the plan order (fewer devices first).
    std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
    for (std::size_t i = 2; i < ranked.size(); ++i) {
      const bool third = i + 1 == kAutoSearchKeep && ranked[i].first >= kAutoSearchThirdWithin * ranked.front().first;
      if (third || ranked[i].second == fastest) continue;
      const std::size_t p = ranked[i].second;
      char buf[512];  // the message is ~270 characters plus the plan label
      std::snprintf(buf, sizeof buf,
                    "search: auto simulates the 2 plans with the highest analytic bound (3 when the third is within "
                    "80%% of the best) and the fastest for one agent; this one's is %.4g output tok/s per system (decode at %g tok/s per agent, mean "
                    "context %.0f tokens) against %.4g for %s",
                    ranked[i].first, speed, context, ranked.front().first,
                    e.plans[ranked.front().second].label.c_str());
      e.plans[p].pruned = buf;
    }
  }
}

}  // namespace agentsim::exp
