#include <algorithm>
#include <array>
#include <string>

#include "calibration/kernel_implementation.hpp"
#include "sim/core/decode_helpers.hpp"
#include "experiments/config/serving_config.hpp"

namespace agentsim::exp {
using core::OptionSpec;
using core::YamlNode;
using core::Dimension;

namespace {

constexpr std::array kServingKeys = {
    OptionSpec{"max_batch_tokens", "integer", "8192", "new tokens per step (decode + prefill chunks)"},
    OptionSpec{"max_sequences", "integer", "256", "sequences in the running batch"},
    OptionSpec{"engine", "string", "vllm",
               "vllm, sglang, trtllm or atom: host time per step from experiments/catalog/engines.yaml (fixed + per sequence + per token, graphs for decode)"},
    OptionSpec{"step_overhead", "time", "engine's model", "constant host time per step; replaces the engine's model when given"},
    OptionSpec{"request_latency", "time", "engine's",
               "a request's path outside the engine loop (client to scheduler, first chunk back), once per request; "
               "replaces the engine's catalog value when given"},
    OptionSpec{"overlap_scheduler", "bool", "engine's",
               "the engine runs each step's per-sequence and per-token host work alongside the accelerators' step "
               "(SGLang's overlap scheduler, TensorRT-LLM's, vLLM's async scheduling); replaces the engine's catalog value when given"},
    OptionSpec{"memory_fraction", "number", "0.9", "share of HBM for weights + activations + KV cache"},
    OptionSpec{"efficiency", "map", "", "constant achieved fractions of peak; when set they replace the accelerators' calibration profiles"},
    OptionSpec{"admission", "string", "reserve", "reserve (prompt + answer up front) or on_demand"},
    OptionSpec{"preemption", "string", "recompute", "on_demand KV shortage: recompute or swap (to host)"},
    OptionSpec{"fast_forward", "bool", "true", "advance decode-only stretches in closed form"},
    OptionSpec{"scheduler_recv_interval", "integer", "1",
               "SGLang's --scheduler-recv-interval: while a batch decodes, arrivals reach the scheduler every this many decode steps"},
    OptionSpec{"kernels", "map", "engine's",
               "op table -> kernel implementation (e.g. grouped_gemm_fp8: deepgemm), replacing the engine's choice from "
               "experiments/catalog/kernel_implementations.yaml, as TensorRT-LLM's moe_config.backend does"},
    OptionSpec{"context_wait", "map", "",
               "TensorRT-LLM's waits that hold new prompts back: attention-DP balance timeout, batch waiting"},
    OptionSpec{"kv_cache", "map", "", "block size, prefix caching, lower tiers, retention"},
    OptionSpec{"router", "string", "round_robin", "round_robin, least_loaded, session_affinity, kv_aware"},
    OptionSpec{"replicas", "integer or fill", "fill",
               "unified replicas behind the router; fill: as many as one system holds (its GPUs / the plan's)"},
    OptionSpec{"disaggregation", "map", "",
               "prefill_replicas and decode_replicas (a fixed split), or search: whether search: auto tries splits"},
    OptionSpec{"pods", "integer or per_replica", "1",
               "independent routing pods, each with its own router and an even share of replicas and load"},
    OptionSpec{"pod_sampling", "string", "all",
               "all pods simulated, or representative: one per distinct share, its records standing for the rest"},
};
constexpr std::array kEfficiencyKeys = {
    OptionSpec{"compute", "number", "1.0", "achieved / peak FLOP/s"},
    OptionSpec{"memory", "number", "1.0", "achieved / peak HBM bandwidth"},
    OptionSpec{"network", "number", "1.0", "achieved / peak scale-up bandwidth"},
};
constexpr std::array kKvKeys = {
    OptionSpec{"block_tokens", "integer", "16", "engine KV block; cache unit = max(this, trace block)"},
    OptionSpec{"runtime_reserve", "bytes", "0B", "HBM per device kept for the runtime"},
    OptionSpec{"prefix_caching", "bool", "true", "reuse cached prompt prefixes"},
    OptionSpec{"overlap_load", "bool", "true", "load-back overlaps the step layer by layer"},
    OptionSpec{"host", "bytes", "0B", "host DRAM tier per replica (0 = none)"},
    OptionSpec{"ssd", "bytes", "0B", "local SSD tier per replica (0 = none)"},
    OptionSpec{"remote", "bytes", "0B", "remote pool tier per replica (0 = none)"},
    OptionSpec{"tier_scope", "string", "replica", "host/ssd/remote sizes per replica, or per node (split by device share, links shared by all its GPUs)"},
    OptionSpec{"retention", "string", "lru", "during tool calls: lru, ttl (pin), offload (to host)"},
    OptionSpec{"ttl", "time", "0s", "pin duration after a turn (retention: ttl)"},
};
constexpr std::array kContextWaitKeys = {
    OptionSpec{"balance_timeout_steps", "integer", "0",
               "attention-DP plans: prompts start when every DP rank has one, a rank decodes none, or every this many steps "
               "(TensorRT-LLM attention_dp_config enable_balance, timeout_iters); 0 = off"},
    OptionSpec{"batch_wait_steps", "integer", "0",
               "plans without attention DP: while sequences decode, prompts wait up to this many steps "
               "(TensorRT-LLM batch_wait_timeout_iters); 0 = off"},
    OptionSpec{"batch_wait_max_tokens_ratio", "number", "0",
               "... or until their tokens plus the decode tokens reach this share of max_batch_tokens "
               "(batch_wait_max_tokens_ratio); 0 = off"},
};
constexpr std::array kDisaggKeys = {
    OptionSpec{"prefill_replicas", "integer", "1", "replicas that prefill"},
    OptionSpec{"decode_replicas", "integer", "1", "replicas that decode"},
    OptionSpec{"systems", "integer", "any",
               "the fixed split must fit in this many systems (its GPUs: both pools' replicas x the plan's)"},
    OptionSpec{"search", "bool", "true",
               "search: auto also ranks prefill/decode splits of each system (docs/disaggregation.md)"},
    OptionSpec{"decode_router", "string", "least_loaded",
               "how a prefilled request picks its decode replica, a router policy as serving.router (round_robin: "
               "Dynamo's frontend default, blind to free slots)"},
    OptionSpec{"decode_max_sequences", "integer", "max_sequences",
               "sequences in a decode replica's running batch (per attention-DP rank where the engine's limits are)"},
};

bool bool_key(const YamlNode& n, std::string_view key, bool fallback) {
  auto v = n.find(key);
  return v ? v->as_bool() : fallback;
}

}  // namespace

std::span<const OptionSpec> serving_options() { return kServingKeys; }
std::span<const OptionSpec> efficiency_options() { return kEfficiencyKeys; }
std::span<const OptionSpec> kv_cache_options() { return kKvKeys; }
std::span<const OptionSpec> disaggregation_options() { return kDisaggKeys; }
std::span<const OptionSpec> context_wait_options() { return kContextWaitKeys; }

ServingConfig decode_serving(const YamlNode* srv) {
  ServingConfig s;
  if (!srv) return s;
  srv->check_keys(kServingKeys);
  s.max_batch_tokens = bounded_int(*srv, "max_batch_tokens", 8192, 1, 1 << 24);
  s.max_sequences = static_cast<int>(bounded_int(*srv, "max_sequences", 256, 1, 1 << 20));
  s.step_overhead_set = srv->has("step_overhead");
  s.step_overhead_s = srv->quantity_or("step_overhead", Dimension::kTime, 0.0);
  s.engine = named_or(*srv, "engine", s.engine, serving::kEngineNames);
  if (auto v = srv->find("request_latency")) {
    s.request_latency_set = true;
    s.request_latency_s = v->as_quantity(Dimension::kTime);
    if (!(s.request_latency_s >= 0 && s.request_latency_s <= 10)) throw v->error("expected a time in [0, 10s]");
  }
  if (auto v = srv->find("overlap_scheduler")) {
    s.overlap_scheduler_set = true;
    s.overlap_scheduler = v->as_bool();
  }
  s.memory_fraction = fraction(*srv, "memory_fraction", 0.9);
  if (auto eff = srv->find("efficiency")) {
    eff->check_keys(kEfficiencyKeys);
    s.efficiency_given = true;
    s.efficiency.compute = fraction(*eff, "compute", 1.0);
    s.efficiency.memory = fraction(*eff, "memory", 1.0);
    s.efficiency.network = fraction(*eff, "network", 1.0);
  }
  if (auto k = srv->find("kernels")) {
    if (!k->is_map()) throw k->error("expected a mapping of op table (e.g. grouped_gemm_fp8) to kernel implementation");
    for (const std::string& table : k->keys()) {
      const YamlNode v = k->at(table);
      const std::string id = v.as_string();
      if (const std::string why = calib::kernel_choice_error(table, id); !why.empty()) throw v.error(why);
      s.kernels[table] = id;
      s.kernels_at[table] = v.where();
    }
  }
  s.admission = named_or(*srv, "admission", s.admission, serving::kAdmissionNames);
  s.preemption = named_or(*srv, "preemption", s.preemption, serving::kPreemptionNames);
  s.fast_forward = bool_key(*srv, "fast_forward", true);
  s.recv_interval_steps = static_cast<int>(bounded_int(*srv, "scheduler_recv_interval", 1, 1, 1 << 20));
  if (auto w = srv->find("context_wait")) {
    w->check_keys(kContextWaitKeys);
    s.balance_timeout_steps = static_cast<int>(bounded_int(*w, "balance_timeout_steps", 0, 0, 1 << 20));
    s.batch_wait_steps = static_cast<int>(bounded_int(*w, "batch_wait_steps", 0, 0, 1 << 20));
    if (auto r = w->find("batch_wait_max_tokens_ratio")) {
      s.batch_wait_max_tokens_ratio = r->as_number();
      if (!(s.batch_wait_max_tokens_ratio >= 0 && s.batch_wait_max_tokens_ratio <= 1)) {
        throw r->error("expected a number in [0, 1]");
      }
    }
  }
  if (auto kv = srv->find("kv_cache")) {
    kv->check_keys(kKvKeys);
    s.block_tokens = bounded_int(*kv, "block_tokens", 16, 1, 1 << 20);
    s.runtime_reserve_bytes = kv->quantity_or("runtime_reserve", Dimension::kBytes, 0.0);
    s.prefix_caching = bool_key(*kv, "prefix_caching", true);
    s.overlap_load = bool_key(*kv, "overlap_load", true);
    s.host_bytes = kv->quantity_or("host", Dimension::kBytes, 0.0);
    s.ssd_bytes = kv->quantity_or("ssd", Dimension::kBytes, 0.0);
    s.remote_bytes = kv->quantity_or("remote", Dimension::kBytes, 0.0);
    s.tier_scope = named_or(*kv, "tier_scope", s.tier_scope, kTierScopeNames);
    s.retention = named_or(*kv, "retention", s.retention, serving::kRetentionNames);
    s.ttl_s = kv->quantity_or("ttl", Dimension::kTime, 0.0);
    if (s.retention == serving::Retention::kTtlPin && !(s.ttl_s > 0)) {
      throw kv->error("retention: ttl needs a positive ttl");
    }
  }
  s.router = named_or(*srv, "router", s.router, serving::kRouterPolicyNames);
  if (auto r = srv->find("replicas"); r && !r->is_sequence() && !r->is_map() && r->as_string() == "fill") {
    s.replicas = 0;
  } else {
    s.replicas = static_cast<int>(bounded_int(*srv, "replicas", 0, 1, 1 << 20));
  }
  if (auto d = srv->find("disaggregation")) {
    d->check_keys(kDisaggKeys);
    s.disaggregation_search = bool_key(*d, "search", true);
    s.decode_router = named_or(*d, "decode_router", s.decode_router, serving::kRouterPolicyNames);
    if (d->has("decode_max_sequences")) {
      s.decode_max_sequences = static_cast<int>(bounded_int(*d, "decode_max_sequences", 0, 1, 1 << 20));
    }
    // A map holding only `search` and the decode pool's keys names no fixed split.
    const bool pool_keys_only = d->has("search") || d->has("decode_router") || d->has("decode_max_sequences");
    if (d->has("prefill_replicas") || d->has("decode_replicas") || !pool_keys_only) {
      s.prefill_replicas = static_cast<int>(bounded_int(*d, "prefill_replicas", 1, 1, 1 << 20));
      s.decode_replicas = static_cast<int>(bounded_int(*d, "decode_replicas", 1, 1, 1 << 20));
      s.disaggregation_at = d->where();
      if (d->has("systems")) {
        s.disaggregation_systems = static_cast<int>(bounded_int(*d, "systems", 1, 1, 1 << 20));
        s.disaggregation_at = d->at("systems").where();
      }
    } else if (d->has("systems")) {
      throw d->at("systems").error("expected prefill_replicas and decode_replicas beside systems (a fixed split)");
    }
  }
  if (auto p = srv->find("pods"); p && !p->is_sequence() && !p->is_map() && p->as_string() == "per_replica") {
    if (s.prefill_replicas > 0) {
      throw p->error("expected an integer: pods: per_replica needs unified replicas (no disaggregation)");
    }
    s.pods = 0;
  } else {
    s.pods = static_cast<int>(bounded_int(*srv, "pods", 1, 1, 1 << 20));
  }
  s.pod_sampling = named_or(*srv, "pod_sampling", s.pod_sampling, kPodSamplingNames);
  const int fewest = s.prefill_replicas > 0 ? std::min(s.prefill_replicas, s.decode_replicas) : s.replicas;
  if (fewest > 0 && s.pods > fewest) {
    throw srv->at("pods").error("expected at most " + std::to_string(fewest) + " pods: each pod needs at least one " +
                                (s.prefill_replicas > 0 ? "prefill and one decode replica" : "replica"));
  }
  return s;
}

serving::EngineOverhead effective_engine_overhead(const ServingConfig& s) {
  // The constant replaces the host time only: which steps replay graphs and how the engine
  // schedules stay the engine's.
  serving::EngineOverhead o = s.engine_overhead;
  if (s.step_overhead_set) o.fixed_s = o.graph_fixed_s = o.per_sequence_s = o.per_token_s = 0;
  if (s.overlap_scheduler_set) o.overlap_scheduler = s.overlap_scheduler;
  return o;
}

double effective_request_latency_s(const ServingConfig& s) {
  return s.request_latency_set ? s.request_latency_s : s.engine_overhead.request_latency_s;
}

}  // namespace agentsim::exp
