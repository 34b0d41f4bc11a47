#include "experiments/run/resolve_run.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <numeric>
#include <string>

#include "experiments/config/deployment_name.hpp"
#include "experiments/run/profile_efficiency.hpp"
#include "sim/serving/engine_overhead.hpp"
#include "hwmodels/memory_tier.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/collective_pricer.hpp"
#include "sim/serving/replica_plan.hpp"
#include "workloads/model/footprint.hpp"
#include "workloads/model/param_counts.hpp"

namespace agentsim::exp {

namespace {

// Whole tokens of `bytes_per_token` in `bytes` (<= 0 when none), held at 10^15: a what-if
// capacity of 10^25 bytes would otherwise overflow the conversion to an integer (undefined
// behaviour; it read as "no KV cache"). No system holds anywhere near 10^15 tokens a device.
long long tokens_that_fit(double bytes, double bytes_per_token) {
  constexpr double kMaxTokens = 1e15;
  return static_cast<long long>(std::min(std::floor(bytes / bytes_per_token), kMaxTokens));
}

double activation_budget_bytes(const ServingConfig& s, const wl::Footprint& fp) {
  return fp.activation_bytes_per_token * static_cast<double>(s.max_batch_tokens);
}

// HBM KV per replica: per device, HBM x memory_fraction minus weights, activations of a
// full token budget and the runtime reserve, over KV bytes per token on that device; times
// the attention-DP ranks, each of which holds the KV of its own sequences only.
long long hbm_kv_tokens(const ServingConfig& s, const hw::System& system, const wl::Footprint& fp,
                        double drafter_bytes_per_device) {
  const double per_device = system.accelerator.hbm_bytes * s.memory_fraction - fp.weight_bytes() - fp.engram_hbm_bytes -
                            drafter_bytes_per_device - activation_budget_bytes(s, fp) - s.runtime_reserve_bytes;
  return tokens_that_fit(per_device, fp.kv_bytes_per_token) * fp.plan.attn_dp;
}

// HBM a running drafter's weights take per device: the model's MTP modules (param_counts; a
// drafter it does not count, such as V4.1's DSpark head, adds nothing) at the model's mean bytes
// per parameter, sharded over one pipeline stage's devices (the stage that holds them).
double drafter_bytes_per_device(const wl::ModelSpec& m, const wl::ParallelPlan& plan, bool speculating) {
  if (!speculating) return 0;
  const wl::ParamCounts c = wl::param_counts(m);
  if (c.mtp <= 0 || c.total() <= 0) return 0;
  return c.mtp * (m.weight_bytes() / c.total()) / plan.devices_per_stage();
}

// The KV cache of one replica of `devices` devices: cache unit, bytes per token, retention, and
// the tiers with their capacity and load-back bandwidth (per replica or per node, tier_scope).
serving::KvManagerOptions kv_options(const ServingConfig& s, const hw::System& system, const wl::Footprint& fp,
                                     int devices, long long trace_block_tokens) {
  serving::KvManagerOptions kv;
  kv.unit_tokens = serving::cache_unit_tokens(s.block_tokens, trace_block_tokens);
  // Per replica: every device of a TP group and every pipeline stage holds its slice of a token's KV.
  kv.kv_bytes_per_token = fp.kv_bytes_per_token * fp.plan.tp * fp.plan.pp;
  kv.prefix_caching = s.prefix_caching;
  kv.retention = s.retention;
  kv.ttl_s = s.ttl_s;
  const bool per_node = s.tier_scope == TierScope::kNode;
  // Per node: the replica's share of the system's tier by devices, and the links loaded by all of them.
  const double share = per_node ? static_cast<double>(devices) / static_cast<double>(system.accelerators) : 1.0;
  const int link_users = per_node ? system.accelerators : devices;
  const auto tiers = hw::memory_tiers(system);  // hbm, host, ssd, remote
  const double capacity[] = {0, s.host_bytes, s.ssd_bytes, s.remote_bytes};
  const char* names[] = {"hbm", "host", "ssd", "remote"};
  for (std::size_t i = 0; i < tiers.size() && i < 4; ++i) {
    serving::KvTierSpec t;
    t.name = names[i];
    t.link = std::string(tiers[i].link);
    t.capacity_tokens = tokens_that_fit(capacity[i] * share, kv.kv_bytes_per_token);
    t.bw_Bps = hw::per_gpu_bw_Bps(tiers[i], link_users) * devices;
    t.latency_s = tiers[i].latency_s;
    kv.tiers.push_back(t);
  }
  return kv;
}

// The plan and engine options priced per step, with the plan's collectives priced over the
// system's topology once and the accelerator's efficiency profile when it names one.
serving::StepCostOptions step_cost_options(const Experiment& e, const DeploymentConfig& d, const hw::System& system) {
  serving::StepCostOptions cost;
  cost.plan = d.plan;
  cost.efficiency = e.serving.efficiency;
  cost.step_overhead_s = e.serving.step_overhead_s;
  // Constants price every op alike: no implementation's table is read, so a kernel choice would
  // change nothing.
  if (e.serving.efficiency_given && !e.serving.kernels.empty()) {
    const auto& [table, id] = *e.serving.kernels.begin();
    const auto at = e.serving.kernels_at.find(table);
    throw core::Error(at != e.serving.kernels_at.end() ? at->second : core::SourceLocation{},
                      "a kernel implementation (" + table + ": " + id +
                          ") prices nothing with serving.efficiency: its constants replace every table; drop one of the two");
  }
  // Precedence: an experiment's explicit `serving.efficiency` constants, else the
  // accelerator's calibration profile (whose all-reduce table, where it has one, also sets
  // the network efficiency), else the constants' defaults (datasheet peaks).
  if (!e.serving.efficiency_given) {
    // The engine selects each op's kernel implementation (experiments/catalog/kernel_implementations.yaml;
    // where the EP group spans systems and exchanges tokens by all-to-all, the MoE runner of the
    // engine's cross-system all-to-all).
    auto profile = load_profile_efficiency(system.accelerator, e.root, e.serving.efficiency,
                                           std::string(serving::to_string(e.serving.engine)),
                                           d.plan.expert_all_to_all && serving::ep_spans_systems(d.plan, system.accelerators),
                                           per_tensor_fp8(e.model.precision.weights_format(), e.model.precision.experts_format()),
                                           e.serving.kernels, e.serving.kernels_at);
    if (profile) {
      const double net = profile->scale_up_network_efficiency();
      if (net > 0) cost.efficiency.network = net;
    }
    cost.kernels = std::move(profile);
  }
  cost.engine = effective_engine_overhead(e.serving);
  cost.overlap = d.overlap;
  cost.cuda_graph = d.cuda_graph.value_or(!e.serving.step_overhead_set);
  cost.ep_imbalance = d.ep_imbalance;
  cost.micro_batches = d.micro_batches;
  cost.host_prefetch = d.host_prefetch;
  cost.engram_prefetch = d.engram_prefetch;
  cost.spec = resolve_speculative(d, e.model);
  cost.collectives =
      std::make_shared<const serving::CollectivePricer>(system, d.plan, d.collective_fidelity, cost.kernels.get());
  return cost;
}

}  // namespace

int RunSpec::accelerators() const {
  if (cluster.prefill_replicas <= 0) return replicas() * devices_per_replica();
  const int prefill_devices = cluster.prefill_devices_per_replica > 0 ? cluster.prefill_devices_per_replica
                                                                      : devices_per_replica();
  return cluster.prefill_replicas * prefill_devices + cluster.decode_replicas * devices_per_replica();
}

int RunSpec::replicas() const {
  return cluster.prefill_replicas > 0 ? cluster.prefill_replicas + cluster.decode_replicas : cluster.replicas;
}

double activation_budget_bytes(const Experiment& e, const wl::ParallelPlan& plan) {
  return activation_budget_bytes(e.serving, wl::footprint(e.model, plan));
}

const Plan& first_valid_plan(const Experiment& e) {
  for (const Plan& p : e.plans) {
    if (p.pruned.empty()) return p;
  }
  throw core::Error(core::SourceLocation{e.file, 0, "deployment"}, "no valid deployment plan");
}

int limit_ranks(const Experiment& e, const wl::ParallelPlan& plan) {
  // The catalog's batch_limits; a constant step_overhead replaces host time, not scheduling.
  return e.serving.engine_overhead.limits_per_dp_rank ? std::max(1, plan.attn_dp) : 1;
}

namespace {

// One replica of deployment `d` on `system`: its step cost, scheduler limits (`max_sequences` per
// scheduler: serving.max_sequences, or a decode pool's decode_max_sequences) and KV cache.
serving::ReplicaOptions replica_options(const Experiment& e, const DeploymentConfig& d, const hw::System& system,
                                        long long trace_block_tokens, int max_sequences) {
  serving::ReplicaOptions ro;
  ro.cost = step_cost_options(e, d, system);
  // Engines whose attention-DP ranks schedule on their own give each rank the limits.
  const int ranks = limit_ranks(e, d.plan);
  ro.max_batch_tokens = e.serving.max_batch_tokens * ranks;
  ro.max_sequences = max_sequences * ranks;
  ro.mixed_batches = e.serving.engine_overhead.mixed_batches;
  ro.recv_interval_steps = e.serving.recv_interval_steps;
  // TensorRT-LLM balances prompts across attention-DP ranks, and batch-waits only without them.
  if (d.plan.attn_dp > 1) {
    ro.context_wait.balance_timeout_steps = e.serving.balance_timeout_steps;
    ro.context_wait.balance_ranks = d.plan.attn_dp;
  } else {
    ro.context_wait.batch_wait_steps = e.serving.batch_wait_steps;
    ro.context_wait.batch_wait_tokens = e.serving.batch_wait_max_tokens_ratio * static_cast<double>(ro.max_batch_tokens);
  }
  // The deployment's own plan (ep, pp, attention-DP, Engram placement), not a TP-only one.
  const wl::Footprint fp = wl::footprint(e.model, d.plan);
  ro.kv_capacity_tokens =
      hbm_kv_tokens(e.serving, system, fp, drafter_bytes_per_device(e.model, d.plan, ro.cost.spec.enabled()));
  ro.kv = kv_options(e.serving, system, fp, d.plan.devices(), trace_block_tokens);
  ro.admission = e.serving.admission;
  ro.preemption = e.serving.preemption;
  ro.overlap_load = e.serving.overlap_load;
  ro.fast_forward = e.serving.fast_forward;
  ro.seed = e.seed;  // the runner sets each run's derived seed
  return ro;
}

}  // namespace

RunSpec resolve_run(const Experiment& e, const Plan& plan, long long trace_block_tokens) {
  RunSpec r;
  r.system = e.systems.at(static_cast<std::size_t>(plan.system));
  const DeploymentConfig& d = plan.deployment;
  const int devices = d.plan.devices();

  // The unified replicas, or the decode pool of a split (its own batch limit where one is set).
  const bool disaggregated = plan.prefill_replicas > 0 || e.serving.prefill_replicas > 0;
  const int decode_sequences = disaggregated && e.serving.decode_max_sequences > 0 ? e.serving.decode_max_sequences
                                                                                  : e.serving.max_sequences;
  serving::ReplicaOptions& ro = r.replica;
  ro = replica_options(e, d, r.system, trace_block_tokens, decode_sequences);
  r.request_latency_s = effective_request_latency_s(e.serving);
  r.warmup_s = e.workload.warmup_s;
  r.end_s = e.workload.warmup_s + e.workload.window_s;
  ro.barriers_s = {r.warmup_s, r.end_s};

  serving::ClusterOptions& clo = r.cluster;
  // fill: as many replicas as one system holds; a replica over several systems is one replica occupying all of them (run_accounting counts their power and GPUs).
  clo.replicas = unified_replicas(e, plan);
  r.pods = e.serving.pods > 0 ? e.serving.pods : clo.replicas;  // 0: per_replica
  if (e.serving.pods > 1 && plan.prefill_replicas == 0 && e.serving.pods > clo.replicas) {
    throw core::Error(core::SourceLocation{e.file, 0, "serving.pods"},
                      "expected at most " + std::to_string(clo.replicas) + " pods: each pod needs at least one replica");
  }
  clo.router = e.serving.router;
  clo.devices_per_replica = devices;
  if (plan.prefill_replicas > 0) {
    // A searched split: each pool its own plan, within one system; pods of equal shares of both pools.
    clo.prefill_replicas = plan.prefill_replicas;
    clo.decode_replicas = plan.decode_replicas;
    clo.prefill_devices_per_replica = plan.prefill.plan.devices();
    r.prefill = replica_options(e, plan.prefill, r.system, trace_block_tokens, e.serving.max_sequences);
    r.prefill.barriers_s = ro.barriers_s;
    const int even = std::gcd(clo.prefill_replicas, clo.decode_replicas);
    r.pods = e.serving.pods > 0 ? std::gcd(even, e.serving.pods) : even;
  } else if (e.serving.prefill_replicas > 0) {
    // The hand-written split: both pools run the deployment.
    clo.prefill_replicas = e.serving.prefill_replicas;
    clo.decode_replicas = e.serving.decode_replicas;
    clo.prefill_devices_per_replica = devices;
    r.prefill = replica_options(e, d, r.system, trace_block_tokens, e.serving.max_sequences);
    r.prefill.barriers_s = ro.barriers_s;
  }
  if (disaggregated) clo.decode_router = e.serving.decode_router;

  // The KV transfer paths of a disaggregated deployment (one system otherwise, unused).
  r.kv_transfer.system = r.system;
  const int accelerators = r.accelerators();
  r.kv_transfer.systems =
      clo.prefill_replicas > 0 ? (accelerators + r.system.accelerators - 1) / r.system.accelerators : 1;
  return r;
}

}  // namespace agentsim::exp
