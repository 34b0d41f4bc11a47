#include "experiments/run/runner.hpp"

#include "experiments/run/resolve_run.hpp"
#include "experiments/run/run_accounting.hpp"

#include "sim/core/error.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/units.hpp"
#include "sim/serving/closed_loop_driver.hpp"
#include "sim/serving/cluster.hpp"
#include "sim/serving/open_loop_driver.hpp"
#include "sim/serving/poisson_session_driver.hpp"
#include "sim/serving/pods.hpp"
#include "sim/serving/request_path.hpp"
#include "sim/core/parallel_for.hpp"
#include "experiments/traceio/trace_files.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

namespace agentsim::exp {

wl::Trace load_sessions(const Experiment& e) {
  if (e.workload.use_generator) {
    auto generated = wl::generate_sessions(e.workload.generator, e.workload.generated_sessions, e.seed);
    apply_replay_rules(generated, e.workload, e.model.max_context, e.seed);
    return generated;
  }
  auto trace = load_trace_file(e.workload.format, e.workload.trace_path);
  if (trace.sessions.empty()) {
    throw core::Error(core::SourceLocation{e.workload.trace_path, 0, ""}, "trace holds no sessions");
  }
  apply_replay_rules(trace, e.workload, e.model.max_context, e.seed);
  return trace;
}

namespace {

// Pod `p` of `pods`: its share of the replicas and of the load, its own seed (sim/serving/pods.hpp).
PodOutcome simulate_pod(const Experiment& e, const RunSpec& spec, const wl::Trace& sessions, double level,
                        std::uint64_t run_seed, const hw::Topology& topology, int pods, int p) {
  serving::ClusterOptions clo = spec.cluster;
  if (clo.prefill_replicas > 0) {
    clo.prefill_replicas = static_cast<int>(serving::pod_share(clo.prefill_replicas, pods, p));
    clo.decode_replicas = static_cast<int>(serving::pod_share(clo.decode_replicas, pods, p));
  } else {
    clo.replicas = static_cast<int>(serving::pod_share(clo.replicas, pods, p));
  }
  const std::uint64_t seed = serving::pod_seed(run_seed, p);
  core::Simulator sim;
  PodOutcome out;
  serving::ReplicaOptions ro = spec.replica;
  ro.seed = seed;  // speculative acceptance streams: one per request under the pod's seed
  serving::ReplicaOptions prefill = spec.prefill;
  prefill.seed = seed;
  serving::Cluster replica(sim, e.model, spec.system, ro, clo, out.recorder, &topology,
                           clo.prefill_replicas > 0 ? &prefill : nullptr);
  serving::RequestPath path(sim, replica, spec.request_latency_s);  // clients send here
  metrics::CacheCounters at_warmup;
  sim.at(core::to_ticks(spec.warmup_s), [&] { at_warmup = replica.counters(); });
  std::unique_ptr<serving::SessionDriver> driver;
  switch (e.workload.mode) {
    case ReplayMode::kClosedLoop: {
      serving::ClosedLoopOptions co;
      co.agents = static_cast<int>(serving::pod_share(static_cast<long long>(level), pods, p));
      co.seed = seed;
      co.max_context_tokens = e.model.max_context;
      co.start_spread_s = e.workload.start_spread_s;
      co.random_start = e.workload.random_start;
      co.gap_caps = {e.workload.human_gap_cap_s, e.workload.tool_gap_cap_s};
      if (e.workload.session_limit > 0) {  // a finite run: this pod's share of the sessions
        co.session_limit = serving::pod_share(e.workload.session_limit, pods, p);
        if (co.session_limit == 0) {  // none for this pod: finished at once
          co.agents = 0;
          out.finished_at_s = 0;
        }
      }
      driver = std::make_unique<serving::ClosedLoopDriver>(sim, path, sessions, co);
      break;
    }
    case ReplayMode::kOpenLoop: {
      // One pod only (the experiment refuses more): the recorded timeline is replayed whole.
      serving::OpenLoopOptions oo;
      oo.time_scale = level;
      oo.max_context_tokens = e.model.max_context;
      driver = std::make_unique<serving::OpenLoopDriver>(sim, path, sessions, oo);
      break;
    }
    case ReplayMode::kPoisson: {
      serving::PoissonOptions po;
      po.sessions_per_s = level / pods;
      po.seed = seed;
      po.max_context_tokens = e.model.max_context;
      po.gap_caps = {e.workload.human_gap_cap_s, e.workload.tool_gap_cap_s};
      driver = std::make_unique<serving::PoissonSessionDriver>(sim, path, sessions, po);
      break;
    }
  }
  driver->start();
  sim.run_until(core::to_ticks(spec.end_s));
  out.counters = replica.counters().since(at_warmup);
  out.turns_truncated = driver->turns_truncated();
  out.events = sim.events_run();
  out.replicas = static_cast<int>(replica.size());
  if (out.finished_at_s < 0) out.finished_at_s = driver->finished_at_s();
  return out;
}

}  // namespace

void check_kv_fits(const Experiment& e, const RunSpec& spec) {
  if (spec.cluster.prefill_replicas > 0 && spec.prefill.kv_capacity_tokens <= 0) {
    throw core::Error(core::SourceLocation{e.file, 0, "deployment.tp"},
                      "weights of " + e.model.name + " leave no KV cache on a prefill replica of " +
                          std::to_string(spec.cluster.prefill_devices_per_replica) + " x " + spec.system.accelerator.name);
  }
  if (spec.replica.kv_capacity_tokens <= 0) {
    throw core::Error(core::SourceLocation{e.file, 0, "deployment.tp"},
                      "weights of " + e.model.name + " (" +
                          core::format_quantity(e.model.weight_bytes(), core::Dimension::kBytes) +
                          ") leave no KV cache on " + std::to_string(spec.devices_per_replica()) + " x " +
                          spec.system.accelerator.name);
  }
}

PodOutcome run_pod(const Experiment& e, const RunSpec& spec, const wl::Trace& sessions, double level,
                   std::uint64_t seed, int pod) {
  check_kv_fits(e, spec);
  const hw::Topology topology = hw::build_topology(spec.kv_transfer);
  return simulate_pod(e, spec, sessions, level, seed, topology, spec.pods, pod);
}

// The pods a run simulates: all of them, or under pod_sampling: representative (closed loop,
// unified replicas) the first of each distinct share, standing for `count` pods.
std::vector<serving::PodClass> simulated_pods(const Experiment& e, const RunSpec& spec, double level) {
  std::vector<serving::PodClass> sim;
  if (e.serving.pod_sampling == PodSampling::kRepresentative && e.workload.mode == ReplayMode::kClosedLoop) {
    const serving::ClusterOptions& c = spec.cluster;
    if (c.prefill_replicas == 0) return serving::pod_classes(c.replicas, static_cast<long long>(level), spec.pods);
    // Disaggregated pods alike when both pools split evenly: they differ by their share of agents only.
    if (c.prefill_replicas % spec.pods == 0 && c.decode_replicas % spec.pods == 0) {
      return serving::pod_classes(spec.pods, static_cast<long long>(level), spec.pods);
    }
  }
  sim.reserve(static_cast<std::size_t>(spec.pods));
  for (int p = 0; p < spec.pods; ++p) sim.push_back({p, 1});
  return sim;
}

RunResult merge_pods(const Experiment& e, const RunSpec& spec, double level, std::vector<PodOutcome>&& parts,
                     const std::vector<serving::PodClass>& stands_for) {
  RunResult r;
  r.level = level;
  r.concurrency = e.workload.mode == ReplayMode::kClosedLoop ? static_cast<int>(level) : 0;
  metrics::Recorder recorder;
  metrics::CacheCounters counters;
  int replicas = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    PodOutcome& part = parts[i];
    const int count = stands_for.empty() ? 1 : stands_for[i].count;
    for (int copy = 1; copy < count; ++copy) {  // the pods this one stands for, besides itself
      metrics::Recorder twin = part.recorder;
      recorder.absorb(std::move(twin));
      counters.add(part.counters);
      r.turns_truncated += part.turns_truncated;
    }
    recorder.absorb(std::move(part.recorder));
    counters.add(part.counters);
    r.turns_truncated += part.turns_truncated;
    r.events += part.events;  // events simulated, not stood for
    replicas += part.replicas * count;
  }
  // A finite run's window ends with its last answer when every pod finished within it, so its
  // rates are the benchmark's (tokens over the run's duration) and its power has no idle tail.
  RunSpec measured = spec;
  if (e.workload.session_limit > 0) {
    double last_s = spec.warmup_s;
    bool all = true;
    for (const PodOutcome& part : parts) {
      all = all && part.finished_at_s >= 0;
      last_s = std::max(last_s, part.finished_at_s);
    }
    // Just past the last answer: the window is half-open and must hold it.
    if (all && last_s < spec.end_s) measured.end_s = std::nextafter(last_s, spec.end_s);
  }
  r.summary = metrics::summarize(recorder, measured.warmup_s, measured.end_s, counters);
  r.kv_capacity_tokens = spec.replica.kv_capacity_tokens;
  // Disaggregated: every pod's share of both pools (the pods stood for are all of them).
  account_run(r, e, measured, recorder,
              spec.cluster.prefill_replicas > 0 ? spec.accelerators() : replicas * spec.devices_per_replica());
  return r;
}

RunResult run_point(const Experiment& e, const RunSpec& spec, const wl::Trace& sessions, double level,
                    std::uint64_t seed, int threads) {
  check_kv_fits(e, spec);
  const hw::Topology topology = hw::build_topology(spec.kv_transfer);

  // Each simulated pod runs its share on its own simulator; merged in pod order.
  const std::vector<serving::PodClass> sim = simulated_pods(e, spec, level);
  std::vector<PodOutcome> parts(sim.size());
  core::parallel_for(parts.size(), std::min<int>(threads, static_cast<int>(sim.size())), [&](std::size_t i) {
    parts[i] = simulate_pod(e, spec, sessions, level, seed, topology, spec.pods, sim[i].first);
  });
  return merge_pods(e, spec, level, std::move(parts), sim);
}

RunResult run_point(const Experiment& e, const wl::Trace& sessions, double level, int threads) {
  const RunSpec spec = resolve_run(e, first_valid_plan(e), sessions.block_size_tokens);
  return run_point(e, spec, sessions, level, e.seed, threads);
}

}  // namespace agentsim::exp
