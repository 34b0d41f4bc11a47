#pragma once
// The `serving` section: engine options of every replica (scheduler, KV cache
// tiers and retention), the router, replica count and prefill/decode split.
#include <span>
#include <string>

#include "experiments/yaml_node.hpp"
#include "hwmodels/efficiency.hpp"

namespace agentsim::exp {

struct ServingConfig {
  long long max_batch_tokens = 8192;
  int max_sequences = 256;
  double step_overhead_s = 0;
  double memory_fraction = 0.9;
  hw::Efficiency efficiency;
  // Scheduler.
  std::string admission = "reserve";     // reserve | on_demand
  std::string preemption = "recompute";  // recompute | swap (on_demand only)
  bool fast_forward = true;              // closed-form decode-only stretches
  // KV cache.
  long long block_tokens = 16;           // engine block; cache unit = max(block, trace block)
  double runtime_reserve_bytes = 0;      // per device, besides weights and activations
  bool prefix_caching = true;
  bool overlap_load = true;
  double host_bytes = 0, ssd_bytes = 0, remote_bytes = 0;  // per replica (or per node); 0 = absent
  // "replica": the sizes above are each replica's and its devices use their links alone;
  // "node": they are each system's, split over its replicas by device share, and every
  // device of the system loads at once (static fair share of the host link and NICs).
  std::string tier_scope = "replica";
  std::string retention = "lru";         // lru | ttl | offload
  double ttl_s = 0;
  // Cluster.
  std::string router = "round_robin";    // round_robin | least_loaded | session_affinity | kv_aware
  int replicas = 1;
  int prefill_replicas = 0;              // > 0: disaggregated
  int decode_replicas = 0;
  int pods = 1;                          // independent routing pods (sim/serving/pods.hpp)
};

// Decodes `serving` (absent = defaults).
// The declarations of the keys above, for `agentsim describe`.
std::span<const OptionSpec> serving_options();
std::span<const OptionSpec> efficiency_options();
std::span<const OptionSpec> kv_cache_options();
std::span<const OptionSpec> disaggregation_options();

ServingConfig decode_serving(const YamlNode* srv);

}  // namespace agentsim::exp
