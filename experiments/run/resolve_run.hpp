#pragma once
// One resolved run: every option struct a simulation of one plan needs, built from the decoded
// experiment in one place (resolve_run) and used by `run`, `explain`, `validate` and `plan`.
#include "experiments/config/experiment.hpp"
#include "hwmodels/cluster_hardware.hpp"
#include "hwmodels/system.hpp"
#include "sim/serving/cluster.hpp"
#include "sim/serving/replica.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::exp {

struct RunSpec {
  hw::System system;                // the plan's system
  serving::ReplicaOptions replica;  // step cost (the plan, efficiency profile, collectives), scheduler, KV cache
                                    // (of the decode pool when disaggregated)
  serving::ReplicaOptions prefill;  // disaggregated: the prefill pool's replicas (its own plan)
  serving::ClusterOptions cluster;  // replicas (serving.replicas, or fill: system GPUs / plan devices), router,
                                    // devices per replica (= the plan's devices)
  hw::ClusterHardware kv_transfer;          // the systems a disaggregated deployment's KV crosses (one otherwise)
  double warmup_s = 0;              // measurement window [warmup_s, end_s)
  double end_s = 0;
  int pods = 1;                     // routing pods (serving.pods; per_replica resolved to the replicas)
  double request_latency_s = 0;     // each request's path outside the engine loop (serving::RequestPath)

  // The run's parallel plan: the one home of tp, ep, pp and dp once the run is resolved.
  const wl::ParallelPlan& plan() const { return replica.cost.plan; }
  int devices_per_replica() const { return cluster.devices_per_replica; }
  // Unified replicas, or prefill + decode replicas when disaggregated.
  int replicas() const;
  // Devices of every replica, both pools when disaggregated.
  int accelerators() const;
};

// Resolves `plan` (one of e.plans) with the experiment's serving and workload options, for a
// trace whose prompt blocks are `trace_block_tokens` long (0: none; the KV unit is the engine
// block). The accelerator's efficiency_profile, when set, prices the kernels (relative to e.root).
RunSpec resolve_run(const Experiment& e, const Plan& plan, long long trace_block_tokens = 0);

// Per device, the activations of a full token budget (serving.max_batch_tokens) under `plan`:
// what serving.memory_fraction holds besides weights and KV (the HBM KV capacity subtracts it).
double activation_budget_bytes(const Experiment& e, const wl::ParallelPlan& plan);

// The schedulers a replica of `plan` runs, each with serving.max_sequences and max_batch_tokens:
// its attention-DP ranks where the engine's limits bind each rank (catalog batch_limits), else 1.
int limit_ranks(const Experiment& e, const wl::ParallelPlan& plan);

// The experiment's first valid plan (the one a single-deployment experiment runs).
const Plan& first_valid_plan(const Experiment& e);

}  // namespace agentsim::exp
