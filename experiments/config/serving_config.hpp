#pragma once
// The `serving` section: engine options of every replica (scheduler, KV cache
// tiers and retention), the router, replica count and prefill/decode split.
#include <map>
#include <span>
#include <string>

#include "sim/core/yaml_node.hpp"
#include "hwmodels/efficiency.hpp"
#include "sim/core/name_table.hpp"
#include "sim/serving/engine_overhead.hpp"
#include "sim/serving/kv_manager.hpp"
#include "sim/serving/replica.hpp"
#include "sim/serving/router.hpp"

namespace agentsim::exp {

// "replica": the lower-tier sizes are each replica's and its devices use their links alone;
// "node": they are each system's, split over its replicas by device share, and every
// device of the system loads at once (static fair share of the host link and NICs).
enum class TierScope { kReplica, kNode };
inline constexpr core::NameTable<TierScope, 2> kTierScopeNames = {{
    {"replica", TierScope::kReplica}, {"node", TierScope::kNode}}};

// "all": every pod is simulated; "representative": pods of the same share (replicas, load) are
// statistically identical (even share, own seed), so one of each distinct share is simulated
// and its records stand for every pod of that share (sim/serving/pods.hpp, pod_classes).
enum class PodSampling { kAll, kRepresentative };
inline constexpr core::NameTable<PodSampling, 2> kPodSamplingNames = {{
    {"all", PodSampling::kAll}, {"representative", PodSampling::kRepresentative}}};

struct ServingConfig {
  long long max_batch_tokens = 8192;
  int max_sequences = 256;
  double step_overhead_s = 0;
  bool step_overhead_set = false;        // `step_overhead` given: it replaces the engine's model
  serving::Engine engine = serving::kDefaultEngine;  // kEngineNames
  serving::EngineOverhead engine_overhead;  // the engine's catalog model (experiments/catalog/engines.yaml)
  // `request_latency`: a request's path outside the engine loop (serving::RequestPath);
  // when absent (request_latency_set false), the engine's catalog value.
  double request_latency_s = 0;
  bool request_latency_set = false;
  // `overlap_scheduler`: whether the engine runs each step's per-sequence and per-token host work
  // alongside the accelerators (serving::EngineOverhead::overlap_scheduler); when absent
  // (overlap_scheduler_set false), the engine's catalog value.
  bool overlap_scheduler = true;
  bool overlap_scheduler_set = false;
  double memory_fraction = 0.9;
  hw::Efficiency efficiency;
  // `serving.efficiency` was written: its constants price every kernel, replacing the
  // accelerators' calibration profiles (docs/calibration.md "Precedence").
  bool efficiency_given = false;
  // Scheduler.
  serving::Admission admission = serving::Admission::kReserveFull;  // kAdmissionNames
  serving::Preemption preemption = serving::Preemption::kRecompute;  // kPreemptionNames (on_demand only)
  bool fast_forward = true;              // closed-form decode-only stretches
  int recv_interval_steps = 1;           // `scheduler_recv_interval` (serving::ReplicaOptions)
  // `context_wait`: TensorRT-LLM's attention-DP balance timeout and batch waiting
  // (serving::ContextWait; resolve_run gives the balance to attention-DP plans only and batch
  // waiting to the others, as TensorRT-LLM does); 0 = off.
  int balance_timeout_steps = 0;
  int batch_wait_steps = 0;
  double batch_wait_max_tokens_ratio = 0;
  // `kernels`: op table (e.g. grouped_gemm_fp8) -> kernel implementation id (e.g. deepgemm), replacing
  // the engine's choice for that op (experiments/catalog/kernel_implementations.yaml) on every
  // accelerator, as an engine option does (TensorRT-LLM's moe_config.backend); where each entry is written.
  std::map<std::string, std::string> kernels;
  std::map<std::string, core::SourceLocation> kernels_at;
  // KV cache.
  long long block_tokens = 16;           // engine block; cache unit = max(block, trace block)
  double runtime_reserve_bytes = 0;      // per device, besides weights and activations
  bool prefix_caching = true;
  bool overlap_load = true;
  double host_bytes = 0, ssd_bytes = 0, remote_bytes = 0;  // per replica (or per node); 0 = absent
  TierScope tier_scope = TierScope::kReplica;                         // kTierScopeNames
  serving::Retention retention = serving::Retention::kLru;            // kRetentionNames
  double ttl_s = 0;
  // Cluster.
  serving::RouterPolicy router = serving::RouterPolicy::kRoundRobin;  // kRouterPolicyNames
  int replicas = 0;                      // unified replicas; 0 = fill: as many as the system holds
  int prefill_replicas = 0;              // > 0: disaggregated (hand-written: both pools run the deployment)
  int decode_replicas = 0;
  int disaggregation_systems = 0;        // > 0: the hand-written split must fit in this many systems
  core::SourceLocation disaggregation_at;  // where the split is written (its errors name it)
  bool disaggregation_search = true;     // search: auto also ranks prefill/decode splits of each system
  // Disaggregated (fixed or searched split): how a prefilled request picks its decode replica, and
  // the decode replicas' running-sequence limit (0 = max_sequences).
  serving::RouterPolicy decode_router = serving::RouterPolicy::kLeastLoaded;  // kRouterPolicyNames
  int decode_max_sequences = 0;
  int pods = 1;                          // independent routing pods (sim/serving/pods.hpp); 0 = one per replica
  PodSampling pod_sampling = PodSampling::kAll;                        // kPodSamplingNames
};

// Decodes `serving` (absent = defaults).
// The declarations of the keys above, for `agentsim describe`.
std::span<const core::OptionSpec> serving_options();
std::span<const core::OptionSpec> efficiency_options();
std::span<const core::OptionSpec> kv_cache_options();
std::span<const core::OptionSpec> disaggregation_options();
std::span<const core::OptionSpec> context_wait_options();

ServingConfig decode_serving(const core::YamlNode* srv);

// The host overhead a step is priced with: the engine's model, or zero host time (the
// engine's graph sizes kept) when `step_overhead` (then a constant in
// StepCostOptions::step_overhead_s) replaces it.
serving::EngineOverhead effective_engine_overhead(const ServingConfig& s);

// A request's path outside the engine loop: `request_latency` when given, else the engine's.
double effective_request_latency_s(const ServingConfig& s);

}  // namespace agentsim::exp
