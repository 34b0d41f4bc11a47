#pragma once
// Cost of one engine step of a replica under a parallel plan: the model's ops
// for the batch (workloads/step_work) priced per op as max(FLOPs / (peak x
// e_compute), bytes / (HBM bw x e_memory), kernels x launch floor), plus the
// plan's collectives over the topology, host-link loads, pipeline bubbles,
// speculative drafting and a per-step overhead. One engine prices it
// (step_coster.hpp); step_cost() is a one-off with the breakdown
// (StepBreakdown) so `agentsim explain` can say where the time went.
#include <memory>
#include <optional>
#include <string_view>

#include "hwmodels/efficiency.hpp"
#include "hwmodels/system.hpp"
#include "sim/core/name_table.hpp"
#include "sim/serving/collective_pricer.hpp"
#include "sim/serving/engine_overhead.hpp"
#include "sim/serving/kernel_efficiency.hpp"
#include "sim/serving/spec_decode.hpp"
#include "sim/serving/step_batch.hpp"
#include "sim/serving/step_breakdown.hpp"
#include "workloads/model/model_spec.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::serving {

enum class Overlap {
  kNone,         // collectives run between the ops, fully exposed
  kCommCompute,  // collective transfer overlaps the ops (latency stays exposed)
  kTwoBatch,     // two micro-batches: one's collectives overlap the other's ops (MoE TBO)
};
// The names of `deployment.overlap` and `explain --overlap`.
inline constexpr core::NameTable<Overlap, 3> kOverlapNames = {{
    {"none", Overlap::kNone}, {"comm", Overlap::kCommCompute}, {"two_batch", Overlap::kTwoBatch}}};
std::string_view to_string(Overlap o);

struct StepCostOptions {
  // The skeleton's three leading options (a tp-only plan); everything else keeps its default.
  StepCostOptions(int tp = 1, hw::Efficiency eff = {}, double overhead_s = 0)
      : efficiency(eff), step_overhead_s(overhead_s) {
    plan.tp = tp;
  }
  hw::Efficiency efficiency;     // constant fractions of peak when `kernels` is absent; network always
  double step_overhead_s = 0;    // constant host time per step, added to `engine` (serving.step_overhead)
  EngineOverhead engine;         // host time per step as a function of the batch (serving.engine)
  wl::ParallelPlan plan;         // tp, ep, pp, attention dp, Engram placement
  std::shared_ptr<const KernelEfficiency> kernels;       // shape-dependent efficiencies (calibration profile)
  std::shared_ptr<const CollectivePricer> collectives;   // topology-priced collectives; absent: closed-form
                                                         // ring/direct alpha-beta on the scale-up figures
  bool cuda_graph = false;       // kernels replayed from a graph: floor x graph_floor_fraction
  double graph_floor_fraction = 0.25;  // assumed where no graph_replay_latency table: the H200 device run measured 0.68 of 2.80 us (0.24)
  Overlap overlap = Overlap::kNone;
  double ep_imbalance = 1.0;     // routing skew beyond uniform: busiest EP rank's load / the uniform-routing busiest rank's, >= 1
  int micro_batches = 1;         // pipeline micro-batches per step (pp > 1)
  bool host_prefetch = false;    // KV loads from host overlap the ops (layer-wise prefetch)
  bool engram_prefetch = true;   // Engram rows on host gathered from step start, overlapping the layers before
                                 // each Engram layer (engram_exposure.hpp); false: gathered inside the Engram op
  int host_link_users = 0;       // GPUs of the system loading from host at once (0: the plan's devices, packed
                                 // onto consecutive GPUs, so links shared by gpus_per_host_link GPUs are shared)
  double host_kv_load_tokens = 0;  // KV tokens loaded from host DRAM this step (summed over sequences)
  SpecDecodeOptions spec;        // speculative decoding / MTP on the decode tokens
};

struct StepCost {
  // Work per device (whole step, all micro-batches).
  double flops = 0;              // every op
  double weight_bytes = 0;       // weights actually read
  double kv_read_bytes = 0;
  double kv_write_bytes = 0;
  double host_bytes = 0;         // over the host link
  double allreduce_bytes = 0;    // payload of each TP all-reduce
  int allreduces = 0;            // TP all-reduces per step (2 per layer when tp > 1)
  // Times; total_s = max(compute_s, memory_s) + comm_latency_s + comm_transfer_s + overhead_s.
  double compute_s = 0;          // sum over ops of FLOPs / (peak x e_compute)
  double memory_s = 0;           // sum over ops of HBM bytes / (bw x e_memory)
  double comm_latency_s = 0;     // exposed alpha terms of the collectives
  double comm_transfer_s = 0;    // exposed beta terms of the collectives and host-link loads
  double overhead_s = 0;         // step overhead, launch floors above the roofline, bubble, drafting
  double total_s = 0;
  bool compute_bound = false;
  StepBreakdown breakdown;
};

// One step with its breakdown (op and collective rows, notes, causes by op);
// callers pricing many steps of one configuration keep a StepCoster.
StepCost step_cost(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                   const StepCostOptions& opt);

}  // namespace agentsim::serving
