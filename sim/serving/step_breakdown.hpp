#pragma once
// Where one step's time went, row by row: each op of each layer kind with its
// work, efficiencies and bound, and each collective with its size, algorithm
// and time; then totals by cause. `explain` prints it; StepCost carries it.
#include <string>
#include <vector>

namespace agentsim::serving {

// What limited an op or a share of the step.
enum class Cause { kCompute, kHbm, kHostLink, kNetwork, kFloor, kOverhead };
std::string_view to_string(Cause c);

struct OpCost {
  std::string layer_kind;  // e.g. "mla/moe", or "model" for once-per-step ops
  std::string op;          // attn_proj, attn_core, routed_experts, lm_head, ...
  double layers = 0;       // layers of this kind on the device (0: once per step)
  std::string dtype;       // math format priced (after any fallback)
  double flops = 0;        // on one device
  double weight_bytes = 0, kv_bytes = 0, act_bytes = 0, host_bytes = 0;
  double kernels = 0;      // launches (layers x kernels per layer)
  double e_compute = 1, e_memory = 1;  // efficiencies used
  double compute_s = 0, memory_s = 0, floor_s = 0, host_s = 0;
  double time_s = 0;       // max(compute, memory, floor), plus exposed host time
  Cause bound = Cause::kCompute;
  std::string note;        // extrapolation or dtype fallback; empty if none
};

struct CollectiveCostRow {
  std::string kind;        // all_reduce, all_to_all_dispatch, all_to_all_combine, send_recv, all_gather, reduce_scatter
  std::string where;
  int group = 1;
  double count = 0;        // per step on one device
  double payload_bytes = 0;  // per occurrence per device
  std::string algorithm;
  double latency_s = 0;    // all occurrences, alpha terms
  double transfer_s = 0;   // all occurrences, beta terms (imbalance and network efficiency applied)
};

// Seconds of the step by cause; they sum to StepCost::total_s.
struct CauseTotals {
  double compute_s = 0;     // ops bound by math
  double hbm_s = 0;         // ops bound by HBM traffic
  double host_link_s = 0;   // exposed host-link loads (Engram, KV from host)
  double network_s = 0;     // exposed collective transfer (beta)
  double floor_s = 0;       // launch floors of floor-bound ops + collective latency (alpha)
  double overhead_s = 0;    // per-step host overhead, pipeline bubble, speculative drafting
  double sum() const { return compute_s + hbm_s + host_link_s + network_s + floor_s + overhead_s; }
};

struct StepBreakdown {
  std::vector<OpCost> ops;
  std::vector<CollectiveCostRow> collectives;
  CauseTotals causes;
  double micro_batch_s = 0;       // one pipeline micro-batch through one stage
  double bubble_s = 0;            // (pp - 1) x micro_batch_s
  double draft_s = 0;             // speculative drafting
  double exposed_comm_s = 0;      // after overlap
  double hidden_comm_s = 0;       // hidden behind compute by overlap
  double host_hidden_s = 0;       // engine host work run alongside the step by its overlap scheduler
  double tokens_per_step = 1;     // emitted per decoding sequence (speculative decoding > 1)
  double engram_host_bytes = 0;        // Engram rows read over the host link, per device (all micro-batches)
  double engram_host_transfer_s = 0;   // their transfer time (latency + bytes / per-GPU host bandwidth)
  double engram_host_exposed_s = 0;    // the part left after prefetch overlap (in causes.host_link_s)
  double host_link_bw_Bps = 0;         // per-GPU host-link bandwidth the loads were priced at
  std::vector<std::string> notes;  // extrapolated lookups, fallbacks, options in effect
};

}  // namespace agentsim::serving
