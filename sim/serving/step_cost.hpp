#pragma once
// Roofline cost of one step of a tensor-parallel replica of a dense model:
// per device, max(FLOPs / (peak x e_compute), bytes / (HBM bw x e_memory)),
// plus the TP all-reduces (alpha-beta, ring) and a fixed per-step overhead.
// Every term is kept so `explain` can print where the time went.
#include "hwmodels/efficiency.hpp"
#include "hwmodels/system.hpp"
#include "sim/serving/step_batch.hpp"
#include "workloads/model_spec.hpp"

namespace agentsim::serving {

struct StepCostOptions {
  int tp = 1;                    // tensor-parallel degree (devices per replica)
  hw::Efficiency efficiency;     // achieved fractions of peak
  double step_overhead_s = 0;    // scheduler + launch floor per step
};

struct StepCost {
  // Work per device.
  double flops = 0;              // linear + attention + LM head
  double weight_bytes = 0;       // weights read once per step
  double kv_read_bytes = 0;      // KV of every attended context token
  double kv_write_bytes = 0;     // KV of every new token
  double allreduce_bytes = 0;    // payload of each TP all-reduce
  int allreduces = 0;            // count per step (2 per layer when tp > 1)
  // Times.
  double compute_s = 0;
  double memory_s = 0;
  double comm_latency_s = 0;     // alpha terms of all all-reduces
  double comm_transfer_s = 0;    // beta terms of all all-reduces
  double overhead_s = 0;
  double total_s = 0;            // max(compute, memory) + comm + overhead
  bool compute_bound = false;
};

StepCost step_cost(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                   const StepCostOptions& opt);

}  // namespace agentsim::serving
