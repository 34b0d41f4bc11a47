#include "experiments/run/plan_ranking.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "experiments/config/deployment_name.hpp"
#include "experiments/output/nice_ticks.hpp"
#include "experiments/run/disagg_plans.hpp"
#include "experiments/run/resolve_run.hpp"
#include "hwmodels/power_model.hpp"
#include "hwmodels/topology.hpp"
#include "sim/serving/draft_costers.hpp"
#include "sim/serving/step_coster.hpp"

namespace agentsim::exp {

namespace {

// Whole systems a plan's GPUs occupy (a replica over several systems, or one system).
long long occupied_systems(const Experiment& e, const Plan& plan) {
  const long long per_system = std::max(1, e.systems.at(static_cast<std::size_t>(plan.system)).accelerators);
  return std::max(1LL, (deployment_gpus(e, plan) + per_system - 1) / per_system);
}

constexpr std::size_t kContextQuantiles = 16;
constexpr int kMissSteps = 16;  // aggregated_by_miss: misses of 0, 1/16, ... 16/16 of the cached prefixes

// Decode steps of a batch as the replica runs them (serving::DraftCosters): with the drafts the
// draft schedule sets at that batch (its sequences all running), each sequence emitting that
// drafter's expected tokens a step.
struct DecodeSteps {
  serving::DraftCosters costers;
  double tokens(long long batch) const { return costers.spec(costers.drafts(batch)).expected_tokens_per_step(); }
  double step_s(const serving::StepBatch& b) const {
    return costers.coster(costers.drafts(static_cast<long long>(b.decodes.size()))).price(b).total_s;
  }
};

// The largest batch in [1, most] for which `fast_enough` holds (it holds at 1 and fails beyond some batch).
template <class F>
long long largest_batch(long long most, F fast_enough) {
  long long good = 1, bad = most + 1;
  while (bad - good > 1) {
    const long long mid = good + (bad - good) / 2;
    (fast_enough(mid) ? good : bad) = mid;
  }
  return good;
}

}  // namespace

WorkloadProfile workload_profile(const wl::Trace& sessions, double human_gap_cap_s, double tool_gap_cap_s) {
  WorkloadProfile w;
  double output = 0, computed = 0, cached = 0, turns = 0, gaps = 0, kept = 0;
  std::vector<std::pair<double, double>> contexts;  // (decode context, output tokens)
  for (const auto& s : sessions.sessions) {
    for (std::size_t t = 0; t < s.turns.size(); ++t) {
      const wl::Turn& turn = s.turns[t];
      const auto input = static_cast<double>(turn.input_tokens);
      double hit = 0;
      if (turn.prefix_parent.valid() && sessions.block_size_tokens > 0) {
        hit = static_cast<double>(turn.prefix_blocks) * static_cast<double>(sessions.block_size_tokens);
      } else if (t > 0 && !turn.prefix_break) {
        hit = static_cast<double>(s.turns[t - 1].input_tokens + s.turns[t - 1].output_tokens);
      }
      hit = std::min(hit, input);
      output += static_cast<double>(turn.output_tokens);
      double gap = turn.gap_after_s;
      const double cap = turn.gap_kind == wl::GapKind::kHuman ? human_gap_cap_s
                         : turn.gap_kind == wl::GapKind::kTool ? tool_gap_cap_s
                                                                : -1;
      if (cap >= 0) gap = std::min(gap, cap);
      gaps += std::max(0.0, gap);
      kept += input + static_cast<double>(turn.output_tokens);
      computed += input - hit;
      cached += hit;
      turns += 1;
      if (turn.output_tokens > 0) {
        contexts.emplace_back(input + 0.5 * static_cast<double>(turn.output_tokens),
                              static_cast<double>(turn.output_tokens));
      }
    }
  }
  if (output > 0) {
    w.computed_input_per_output = computed / output;
    w.cached_input_per_output = cached / output;
  }
  if (turns > 0) {
    w.mean_cached_tokens = cached / turns;
    w.mean_output_per_turn = output / turns;
    w.mean_gap_s = gaps / turns;
    w.mean_session_context = kept / turns;
  }
  std::sort(contexts.begin(), contexts.end());
  double weight = 0, sum = 0;
  for (const auto& [c, n] : contexts) weight += n, sum += c * n;
  if (weight > 0) {
    w.mean_decode_context = sum / weight;
    double seen = 0;
    std::size_t i = 0;
    for (std::size_t q = 0; q < kContextQuantiles; ++q) {
      const double at = (static_cast<double>(q) + 0.5) / static_cast<double>(kContextQuantiles) * weight;
      while (i + 1 < contexts.size() && seen + contexts[i].second < at) seen += contexts[i++].second;
      w.decode_context_quantiles.push_back(contexts[i].first);
    }
  }
  return w;
}

double bound_speed_tok_s(const Experiment& e) {
  if (!e.readoff_speeds_tok_s.empty()) return *std::min_element(e.readoff_speeds_tok_s.begin(), e.readoff_speeds_tok_s.end());
  double slowest = 0;  // no speed read-off: the slowest SLO tier (the search ranks by the first tier then)
  for (const SloTier& t : e.slo_tiers) slowest = slowest > 0 ? std::min(slowest, t.agent_tok_s) : t.agent_tok_s;
  return slowest > 0 ? slowest : 1.0;
}

PlanBound plan_bound(const Experiment& e, const Plan& plan, double context_tokens, double agent_tok_s,
                     long long trace_block_tokens) {
  const RunSpec spec = resolve_run(e, plan, trace_block_tokens);
  const DecodeSteps decode{serving::DraftCosters(e.model, spec.system, spec.replica.cost)};
  const auto context = static_cast<long long>(context_tokens);
  auto tokens = [&](long long batch) { return decode.tokens(batch); };
  auto step_s = [&](long long batch) {
    serving::StepBatch b;
    b.decodes.assign(static_cast<std::size_t>(batch), serving::DecodeItem{context});
    return decode.step_s(b);
  };
  const long long kv_batch =
      context > 0 ? spec.replica.kv_capacity_tokens / context : static_cast<long long>(spec.replica.max_sequences);
  const long long most = std::min<long long>(spec.replica.max_sequences, kv_batch);
  PlanBound out;
  if (most < 1) return out;
  out.single_agent_tok_s = tokens(1) / step_s(1);
  if (out.single_agent_tok_s < agent_tok_s) return out;
  out.batch = largest_batch(most, [&](long long batch) { return tokens(batch) / step_s(batch) >= agent_tok_s; });
  out.step_s = step_s(out.batch);
  out.system_tok_s = static_cast<double>(spec.replicas()) * static_cast<double>(out.batch) * tokens(out.batch) / out.step_s;
  return out;
}

ReplicaBound replica_bound(const Experiment& e, const DeploymentConfig& d, int system, const WorkloadProfile& w,
                           double agent_tok_s, long long trace_block_tokens) {
  Plan unit;
  unit.system = system;
  unit.deployment = d;
  const RunSpec spec = resolve_run(e, unit, trace_block_tokens);
  const DecodeSteps decode{serving::DraftCosters(e.model, spec.system, spec.replica.cost)};
  auto tokens = [&](long long batch) { return decode.tokens(batch); };
  ReplicaBound out;
  out.devices = d.plan.devices();
  out.rank_devices = d.plan.tp * d.plan.pp;
  out.kv_capacity_tokens = spec.replica.kv_capacity_tokens;
  // Prefill-only steps: a full token budget on every attention-DP rank, attending to the mean cached prefix.
  serving::StepBatch pre;
  pre.prefills.assign(static_cast<std::size_t>(d.plan.attn_dp),
                      serving::PrefillChunk{e.serving.max_batch_tokens, static_cast<long long>(w.mean_cached_tokens), false});
  const double pre_s = decode.costers.coster(decode.costers.own_drafts()).price(pre).total_s;
  if (pre_s > 0) out.prefill_tok_s = static_cast<double>(pre.new_tokens()) / pre_s;
  // Decode steps of `batch` sequences at the workload's context quantiles.
  const std::vector<double>& q = w.decode_context_quantiles;
  auto step_s = [&](long long batch) {
    serving::StepBatch b;
    b.decodes.reserve(static_cast<std::size_t>(batch));
    for (long long i = 0; i < batch; ++i) {
      const auto k = q.empty() ? 0 : static_cast<std::size_t>((static_cast<double>(i) + 0.5) / static_cast<double>(batch) *
                                                             static_cast<double>(q.size()));
      b.decodes.push_back(serving::DecodeItem{q.empty() ? 0 : static_cast<long long>(q[std::min(k, q.size() - 1)])});
    }
    return decode.step_s(b);
  };
  const long long kv_batch = w.mean_decode_context > 0
                                 ? static_cast<long long>(static_cast<double>(spec.replica.kv_capacity_tokens) / w.mean_decode_context)
                                 : static_cast<long long>(spec.replica.max_sequences);
  const long long most = std::min<long long>(spec.replica.max_sequences, kv_batch);
  if (most < 1) return out;
  out.single_agent_tok_s = tokens(1) / step_s(1);
  if (out.single_agent_tok_s < agent_tok_s) return out;
  const long long batch = largest_batch(most, [&](long long b) { return tokens(b) / step_s(b) >= agent_tok_s; });
  out.decode_batch = batch;
  out.decode_tok_s = static_cast<double>(batch) * tokens(batch) / step_s(batch);
  // Aggregated: every step also computes the prompts of the tokens it emits, which stretches it;
  // tabulated over the share of cached prefixes the cache misses (kMissSteps + 1 points).
  std::vector<double> steps(static_cast<std::size_t>(most) + 1, -1.0);
  auto memo_s = [&](long long b) {
    double& v = steps[static_cast<std::size_t>(b)];
    if (v < 0) v = step_s(b);
    return v;
  };
  for (int m = 0; m <= kMissSteps; ++m) {
    const double c = w.computed_input_per_output + w.cached_input_per_output * m / kMissSteps;
    auto mixed_s = [&](long long b) {
      const double extra = out.prefill_tok_s > 0 ? static_cast<double>(b) * tokens(b) * c / out.prefill_tok_s : 0.0;
      return memo_s(b) + extra;
    };
    double v = 0;
    if (tokens(1) / mixed_s(1) >= agent_tok_s) {
      const long long mb = largest_batch(most, [&](long long b) { return tokens(b) / mixed_s(b) >= agent_tok_s; });
      v = static_cast<double>(mb) * tokens(mb) / mixed_s(mb);
    }
    out.aggregated_by_miss.push_back(v);
  }
  out.aggregated_tok_s = out.aggregated_by_miss.front();
  return out;
}

double system_bound(const Experiment& e, const Plan& plan, const ReplicaBound& decode, const ReplicaBound* prefill,
                    const WorkloadProfile& w, double per_gpu_link_Bps) {
  const double inf = std::numeric_limits<double>::infinity();
  const bool split = prefill && plan.prefill_replicas > 0;
  // Output tok/s of the system when `miss` of the cached prefixes are computed again.
  auto at_miss = [&](double miss) {
    const double c = w.computed_input_per_output + miss * w.cached_input_per_output;
    if (!split) {
      const auto& t = decode.aggregated_by_miss;
      if (t.size() < 2) return 0.0;  // the speed is out of reach (no table)
      const double x = std::clamp(miss, 0.0, 1.0) * static_cast<double>(t.size() - 1);
      const std::size_t i = std::min(static_cast<std::size_t>(x), t.size() - 2);
      const double f = x - static_cast<double>(i);
      return static_cast<double>(unified_replicas(e, plan)) * (t[i] * (1 - f) + t[i + 1] * f);
    }
    const double decode_pool = static_cast<double>(plan.decode_replicas) * decode.decode_tok_s;
    const double prefill_pool = c > 0 ? static_cast<double>(plan.prefill_replicas) * prefill->prefill_tok_s / c : inf;
    // Every prompt's KV crosses once: the prefill pool's GPUs stream it at their route's bandwidth.
    const double kv_bytes_per_output =
        (w.computed_input_per_output + w.cached_input_per_output) * e.model.kv_bytes_per_token();
    const double streams = std::min(static_cast<double>(plan.prefill_replicas) * prefill->devices,
                                    static_cast<double>(plan.decode_replicas) * decode.devices);
    const double network = kv_bytes_per_output > 0 ? streams * per_gpu_link_Bps / kv_bytes_per_output : inf;
    return std::min({decode_pool, prefill_pool, network});
  };
  // The prefix cache: the prefilling replicas' HBM against the contexts of the agents at work.
  const double cache_tokens = split ? static_cast<double>(plan.prefill_replicas) * static_cast<double>(prefill->kv_capacity_tokens)
                                    : static_cast<double>(unified_replicas(e, plan)) * static_cast<double>(decode.kv_capacity_tokens);
  const double speed = bound_speed_tok_s(e);
  const double cycle_s = w.mean_output_per_turn / speed + w.mean_gap_s;  // one agent's turn
  const double agent_tok_s = cycle_s > 0 ? w.mean_output_per_turn / cycle_s : 0;
  double miss = 0, tok_s = at_miss(0);
  for (int i = 0; i < 8 && agent_tok_s > 0 && w.mean_session_context > 0; ++i) {
    const double agents = tok_s / agent_tok_s;
    const double held = agents * w.mean_session_context;
    const double want = held > cache_tokens ? 1 - cache_tokens / held : 0.0;
    miss = 0.5 * (miss + want);  // damped: more misses lower the throughput and the agents
    tok_s = at_miss(miss);
  }
  // Per system: a replica over n systems is ranked against single-system plans by its nth.
  return tok_s / static_cast<double>(occupied_systems(e, plan));
}

double bound_power_w(const Experiment& e, const Plan& plan) {
  const hw::System& s = e.systems.at(static_cast<std::size_t>(plan.system));
  const long long per_system = std::max(1, s.accelerators);
  const long long gpus = deployment_gpus(e, plan);
  const long long systems = occupied_systems(e, plan);
  const double busy_w = hw::accelerator_power_w(s.accelerator, s.accelerator.decode_power_fraction);
  const auto slots = static_cast<double>(systems * per_system);
  const double mean_w = (static_cast<double>(gpus) * busy_w + (slots - static_cast<double>(gpus)) * s.accelerator.idle_w) / slots;
  return hw::system_power(s, mean_w, e.power).facility_w;
}

double bound_per_w(const Plan& plan) { return plan.bound_power_w > 0 ? plan.bound_tok_s / plan.bound_power_w : 0.0; }

void rank_plans(Experiment& e, const wl::Trace& sessions) {
  if (!e.search_auto) return;
  const WorkloadProfile w = workload_profile(sessions, e.workload.human_gap_cap_s, e.workload.tool_gap_cap_s);
  const double speed = bound_speed_tok_s(e);
  for (std::size_t sys = 0; sys < e.systems.size(); ++sys) {
    std::vector<int> valid;
    std::vector<ReplicaBound> unit(e.plans.size());
    for (std::size_t p = 0; p < e.plans.size(); ++p) {
      Plan& plan = e.plans[p];
      if (plan.system != static_cast<int>(sys) || !plan.pruned.empty()) continue;
      unit[p] = replica_bound(e, plan.deployment, plan.system, w, speed, sessions.block_size_tokens);
      plan.bound_tok_s = system_bound(e, plan, unit[p], nullptr, w, 0);
      plan.bound_power_w = bound_power_w(e, plan);
      valid.push_back(static_cast<int>(p));
    }
    if (valid.empty()) continue;
    // Splits of the system between a prefill and a decode pool, bounded the same way.
    if (e.serving.disaggregation_search && e.serving.prefill_replicas == 0) {
      hw::ClusterHardware one;
      one.system = e.systems[sys];
      const hw::Topology topo = hw::build_topology(one);
      const double link_Bps = topo.gpu_route(0, one.system.accelerators - 1).bottleneck_Bps;
      for (Plan& split : split_plans(e, static_cast<int>(sys), valid, unit, w, link_Bps)) e.plans.push_back(std::move(split));
    }
    // The leader of each family by the bound (split and aggregated: the bound prices them by
    // different physics, so one family's leader is simulated however the other ranks), the
    // aggregated plan of the highest bound per system (per watt, a plan leaving GPUs idle can
    // rank above one that fills the system; the simulation decides between them) and the
    // fastest single agent.
    std::size_t fastest = e.plans.size(), best_split = e.plans.size(), best_aggregated = e.plans.size();
    std::size_t most_aggregated = e.plans.size();
    for (std::size_t p = 0; p < e.plans.size(); ++p) {
      if (e.plans[p].system != static_cast<int>(sys) || !e.plans[p].pruned.empty()) continue;
      if (e.plans[p].prefill_replicas > 0) {
        if (best_split == e.plans.size() || bound_per_w(e.plans[p]) > bound_per_w(e.plans[best_split])) best_split = p;
        continue;
      }
      if (fastest == e.plans.size() || unit[p].single_agent_tok_s > unit[fastest].single_agent_tok_s) fastest = p;
      if (best_aggregated == e.plans.size() || bound_per_w(e.plans[p]) > bound_per_w(e.plans[best_aggregated])) {
        best_aggregated = p;
      }
      if (most_aggregated == e.plans.size() || e.plans[p].bound_tok_s > e.plans[most_aggregated].bound_tok_s) {
        most_aggregated = p;
      }
    }
    std::vector<std::size_t> also;
    for (const std::size_t p : {fastest, best_split, best_aggregated, most_aggregated}) {
      if (p < e.plans.size()) also.push_back(p);
    }
    rank_by_bound(e, static_cast<int>(sys), also, w.computed_input_per_output);
  }
}

void rank_by_bound(Experiment& e, int system, const std::vector<std::size_t>& also_simulated,
                   double computed_input_per_output) {
  std::vector<std::size_t> ranked;
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    if (e.plans[p].system == system && e.plans[p].pruned.empty()) ranked.push_back(p);
  }
  if (ranked.empty()) return;
  // Highest bound per watt first (the read-offs are per MW: a plan leaving GPUs idle draws less);
  // between equal ones (splits whose decode pool binds alike) the larger prefill pool (its
  // prompts queue less), else the plan order (fewer devices first, splits last).
  std::stable_sort(ranked.begin(), ranked.end(), [&](std::size_t a, std::size_t b) {
    const Plan& x = e.plans[a];
    const Plan& y = e.plans[b];
    if (bound_per_w(x) != bound_per_w(y)) return bound_per_w(x) > bound_per_w(y);
    return x.bound_prefill_tok_s > y.bound_prefill_tok_s;
  });
  const std::size_t top = ranked.front();
  const std::string top_name = deployment_name(e, e.plans[top]);
  const double speed = bound_speed_tok_s(e);
  for (std::size_t i = 0; i < ranked.size(); ++i) {
    Plan& p = e.plans[ranked[i]];
    p.bound_rank = static_cast<int>(i) + 1;
    p.held_back = false;
    const bool also = std::find(also_simulated.begin(), also_simulated.end(), ranked[i]) != also_simulated.end();
    if (static_cast<int>(i) < kAutoSearchKeep || also) continue;
    p.held_back = true;
    char buf[640];
    std::snprintf(buf, sizeof buf,
                  "search: auto ranks it %zu of %zu by the analytic bound per MW, %s output tok/s per system (at %g tok/s "
                  "per agent, decode at the workload's contexts, prefill of %.3g computed input tokens per output "
                  "token) against %s for %s; simulated only if the search goes this far down the ranking",
                  i + 1, ranked.size(), readable_number(p.bound_tok_s, 4).c_str(), speed, computed_input_per_output,
                  readable_number(e.plans[top].bound_tok_s, 4).c_str(), top_name.c_str());
    p.pruned = buf;
  }
}

}  // namespace agentsim::exp
