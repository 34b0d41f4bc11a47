#pragma once
// Memory a model needs on each device under a parallel plan. Per-device
// figures are for the average pipeline stage (layers, embedding and head are
// split evenly over pp); whole-model figures are recovered by multiplying each
// part by the devices that hold a distinct copy of it.
#include "workloads/model/model_spec.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::wl {

struct Footprint {
  ParallelPlan plan;
  // Weight bytes on one device, by how they are placed.
  double sharded_weight_bytes = 0;     // split over tp, copied over attn_dp: attention, dense FFN,
                                       // shared experts, indexers, embedding, LM head
  double replicated_weight_bytes = 0;  // on every device: norms, routers
  double expert_weight_bytes = 0;      // this device's routed experts (ceil((E + redundant)/ep) expert
                                       // slots, each split expert_tp ways)
  double experts_per_device = 0;       // routed expert slots per MoE layer on one EP rank
  // KV bytes one token of a sequence adds on each device of its attention group.
  double kv_bytes_per_token = 0;
  // Activation/workspace bytes per batch token on one device (one layer's live
  // tensors plus FP32 logits; an estimate).
  double activation_bytes_per_token = 0;
  double engram_hbm_bytes = 0;              // per device when the tables sit in HBM (row-sharded)
  double host_bytes = 0;                    // Engram tables in host memory, per replica
  double host_read_bytes_per_token = 0;     // Engram rows fetched over the host link per token

  double weight_bytes() const { return sharded_weight_bytes + replicated_weight_bytes + expert_weight_bytes; }
  // Weight bytes summed over the replica: ModelSpec::weight_bytes() plus the redundant experts'
  // copies (and the empty slots they round up to), so exactly it when ep divides the experts.
  double whole_weight_bytes() const;
};

Footprint footprint(const ModelSpec& m, const ParallelPlan& plan);

}  // namespace agentsim::wl
