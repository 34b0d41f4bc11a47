#include "experiments/runner.hpp"

#include "experiments/run_accounting.hpp"

#include "sim/core/error.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/units.hpp"
#include "sim/serving/closed_loop_driver.hpp"
#include "sim/serving/cluster.hpp"
#include "hwmodels/memory_tier.hpp"
#include "workloads/footprint.hpp"
#include "sim/serving/open_loop_driver.hpp"
#include "sim/serving/poisson_session_driver.hpp"
#include "sim/serving/pods.hpp"
#include "sim/core/parallel_for.hpp"
#include "experiments/trace_files.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace agentsim::exp {

wl::Trace load_sessions(const Experiment& e) {
  if (e.workload.use_generator) {
    return wl::generate_sessions(e.workload.generator, e.workload.generated_sessions, e.seed);
  }
  auto trace = load_trace_file(e.workload.format, e.workload.trace_path);
  if (trace.sessions.empty()) {
    throw core::Error(core::SourceLocation{e.workload.trace_path, 0, ""}, "trace holds no sessions");
  }
  return trace;
}

namespace {

// HBM KV per replica: per device, HBM x memory_fraction minus weights, activations of a
// full token budget and the runtime reserve, over KV bytes per token on that device.
long long hbm_kv_tokens(const Experiment& e, const wl::Footprint& fp) {
  const double per_device = e.system.accelerator.hbm_bytes * e.serving.memory_fraction - fp.weight_bytes() -
                            fp.engram_hbm_bytes -
                            fp.activation_bytes_per_token * static_cast<double>(e.serving.max_batch_tokens) -
                            e.serving.runtime_reserve_bytes;
  return static_cast<long long>(std::floor(per_device / fp.kv_bytes_per_token));
}

}  // namespace

serving::KvManagerOptions kv_options(const Experiment& e, const wl::Trace& sessions, const wl::Footprint& fp) {
  serving::KvManagerOptions kv;
  kv.unit_tokens = serving::cache_unit_tokens(e.serving.block_tokens, sessions.block_size_tokens);
  // Per replica: every device of a TP group and every pipeline stage holds its slice of a token's KV.
  kv.kv_bytes_per_token = fp.kv_bytes_per_token * e.deployment.plan.tp * e.deployment.plan.pp;
  kv.prefix_caching = e.serving.prefix_caching;
  kv.retention = e.serving.retention == "ttl"       ? serving::Retention::kTtlPin
                 : e.serving.retention == "offload" ? serving::Retention::kOffload
                                                     : serving::Retention::kLru;
  kv.ttl_s = e.serving.ttl_s;
  const bool per_node = e.serving.tier_scope == "node";
  const int devices = e.deployment.tp;  // devices of one replica, as the tiers' links see them
  // Per node: the replica's share of the system's tier by devices, and the links loaded by all of them.
  const double share = per_node ? static_cast<double>(devices) / static_cast<double>(e.system.accelerators) : 1.0;
  const int link_users = per_node ? e.system.accelerators : devices;
  const auto tiers = hw::memory_tiers(e.system);  // hbm, host, ssd, remote
  const double capacity[] = {0, e.serving.host_bytes, e.serving.ssd_bytes, e.serving.remote_bytes};
  const char* names[] = {"hbm", "host", "ssd", "remote"};
  for (std::size_t i = 0; i < tiers.size() && i < 4; ++i) {
    serving::KvTierSpec t;
    t.name = names[i];
    t.link = std::string(tiers[i].link);
    t.capacity_tokens = static_cast<long long>(capacity[i] * share / kv.kv_bytes_per_token);
    t.bw_Bps = hw::per_gpu_bw_Bps(tiers[i], link_users) * devices;
    t.latency_s = tiers[i].latency_s;
    kv.tiers.push_back(t);
  }
  return kv;
}

namespace {

serving::RouterPolicy router_policy(const std::string& s) {
  if (s == "least_loaded") return serving::RouterPolicy::kLeastLoaded;
  if (s == "session_affinity") return serving::RouterPolicy::kSessionAffinity;
  if (s == "kv_aware") return serving::RouterPolicy::kKvAware;
  return serving::RouterPolicy::kRoundRobin;
}

}  // namespace

namespace {

struct PodOutcome {
  metrics::Recorder recorder;
  metrics::CacheCounters counters;  // over the window (since warm-up)
  long long turns_truncated = 0;
  unsigned long long events = 0;
  int replicas = 0;
};

// Pod `p` of `pods`: its share of the replicas and of the load, its own seed (sim/serving/pods.hpp).
PodOutcome run_pod(const Experiment& e, const wl::Trace& sessions, double level, const serving::ReplicaOptions& ro,
                   serving::ClusterOptions clo, const hw::Topology& topology, double end_s, int pods, int p) {
  if (clo.prefill_replicas > 0) {
    clo.prefill_replicas = static_cast<int>(serving::pod_share(clo.prefill_replicas, pods, p));
    clo.decode_replicas = static_cast<int>(serving::pod_share(clo.decode_replicas, pods, p));
  } else {
    clo.replicas = static_cast<int>(serving::pod_share(clo.replicas, pods, p));
  }
  const std::uint64_t seed = serving::pod_seed(e.seed, p);
  core::Simulator sim;
  PodOutcome out;
  serving::Cluster replica(sim, e.model, e.system, ro, clo, out.recorder, &topology);
  metrics::CacheCounters at_warmup;
  sim.at(core::to_ticks(e.workload.warmup_s), [&] { at_warmup = replica.counters(); });
  std::unique_ptr<serving::SessionDriver> driver;
  switch (e.workload.mode) {
    case ReplayMode::kClosedLoop: {
      serving::ClosedLoopOptions co;
      co.agents = static_cast<int>(serving::pod_share(static_cast<long long>(level), pods, p));
      co.seed = seed;
      co.max_context_tokens = e.model.max_context;
      co.start_spread_s = e.workload.start_spread_s;
      co.random_start = e.workload.random_start;
      co.human_gap_cap_s = e.workload.human_gap_cap_s;
      driver = std::make_unique<serving::ClosedLoopDriver>(sim, replica, sessions, co);
      break;
    }
    case ReplayMode::kOpenLoop: {
      // One pod only (the experiment refuses more): the recorded timeline is replayed whole.
      serving::OpenLoopOptions oo;
      oo.time_scale = level;
      oo.max_context_tokens = e.model.max_context;
      driver = std::make_unique<serving::OpenLoopDriver>(sim, replica, sessions, oo);
      break;
    }
    case ReplayMode::kPoisson: {
      serving::PoissonOptions po;
      po.sessions_per_s = level / pods;
      po.seed = seed;
      po.max_context_tokens = e.model.max_context;
      po.human_gap_cap_s = e.workload.human_gap_cap_s;
      driver = std::make_unique<serving::PoissonSessionDriver>(sim, replica, sessions, po);
      break;
    }
  }
  driver->start();
  sim.run_until(core::to_ticks(end_s));
  out.counters = replica.counters().since(at_warmup);
  out.turns_truncated = driver->turns_truncated();
  out.events = sim.events_run();
  out.replicas = static_cast<int>(replica.size());
  return out;
}

}  // namespace

RunResult run_point(const Experiment& e, const wl::Trace& sessions, double level, int threads) {
  serving::ReplicaOptions ro;
  ro.cost.tp = e.deployment.tp;
  ro.cost.efficiency = e.serving.efficiency;
  ro.cost.step_overhead_s = e.serving.step_overhead_s;
  apply_deployment(e.deployment, e.system, ro.cost);
  ro.max_batch_tokens = e.serving.max_batch_tokens;
  ro.max_sequences = e.serving.max_sequences;
  // The deployment's own plan (ep, pp, attention-DP, Engram placement), not a TP-only one.
  const wl::Footprint fp = wl::footprint(e.model, e.deployment.plan);
  ro.kv_capacity_tokens = hbm_kv_tokens(e, fp);
  if (ro.kv_capacity_tokens <= 0) {
    throw core::Error(core::SourceLocation{e.file, 0, "deployment.tp"},
                      "weights of " + e.model.name + " (" +
                          core::format_quantity(e.model.weight_bytes(), core::Dimension::kBytes) +
                          ") leave no KV cache on " + std::to_string(e.deployment.tp) + " x " +
                          e.system.accelerator.name);
  }
  ro.kv = kv_options(e, sessions, fp);
  ro.admission = e.serving.admission == "on_demand" ? serving::Admission::kOnDemand : serving::Admission::kReserveFull;
  ro.preemption = e.serving.preemption == "swap" ? serving::Preemption::kSwap : serving::Preemption::kRecompute;
  ro.overlap_load = e.serving.overlap_load;
  ro.fast_forward = e.serving.fast_forward;
  const double end_s = e.workload.warmup_s + e.workload.window_s;
  ro.barriers_s = {e.workload.warmup_s, end_s};

  serving::ClusterOptions clo;
  clo.replicas = e.serving.replicas;
  clo.prefill_replicas = e.serving.prefill_replicas;
  clo.decode_replicas = e.serving.decode_replicas;
  clo.router = router_policy(e.serving.router);
  clo.devices_per_replica = e.deployment.tp;
  // The KV transfer paths of a disaggregated deployment (one system otherwise, unused).
  hw::Cluster hc;
  hc.system = e.system;
  const int devices = (clo.prefill_replicas + clo.decode_replicas) * e.deployment.tp;
  hc.systems = clo.prefill_replicas > 0 ? (devices + e.system.accelerators - 1) / e.system.accelerators : 1;
  const hw::Topology topology = hw::build_topology(hc);

  // Each pod simulates its share on its own simulator; merged in pod order below.
  const int pods = e.serving.pods;
  std::vector<PodOutcome> parts(static_cast<std::size_t>(pods));
  core::parallel_for(parts.size(), std::min(threads, pods), [&](std::size_t p) {
    parts[p] = run_pod(e, sessions, level, ro, clo, topology, end_s, pods, static_cast<int>(p));
  });

  RunResult r;
  r.level = level;
  r.concurrency = e.workload.mode == ReplayMode::kClosedLoop ? static_cast<int>(level) : 0;
  metrics::Recorder recorder;
  metrics::CacheCounters counters;
  int replicas = 0;
  for (PodOutcome& part : parts) {
    recorder.absorb(std::move(part.recorder));
    counters.add(part.counters);
    r.turns_truncated += part.turns_truncated;
    r.events += part.events;
    replicas += part.replicas;
  }
  r.summary = metrics::summarize(recorder, e.workload.warmup_s, end_s, counters);
  r.kv_capacity_tokens = ro.kv_capacity_tokens;
  account_run(r, e, recorder, e.workload.warmup_s, end_s, replicas * e.deployment.tp);
  return r;
}

}  // namespace agentsim::exp
