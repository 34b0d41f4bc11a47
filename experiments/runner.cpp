#include "experiments/runner.hpp"

#include "experiments/run_accounting.hpp"

#include "sim/core/error.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/units.hpp"
#include "sim/serving/closed_loop_driver.hpp"
#include "sim/serving/replica.hpp"
#include "sim/serving/open_loop_driver.hpp"
#include "sim/serving/poisson_session_driver.hpp"
#include "experiments/trace_files.hpp"

#include <memory>

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

RunResult run_point(const Experiment& e, const wl::Trace& sessions, double level) {
  serving::ReplicaOptions ro;
  ro.cost.tp = e.deployment.tp;
  ro.cost.efficiency = e.serving.efficiency;
  ro.cost.step_overhead_s = e.serving.step_overhead_s;
  apply_deployment(e.deployment, e.system, ro.cost);
  ro.max_batch_tokens = e.serving.max_batch_tokens;
  ro.max_sequences = e.serving.max_sequences;
  ro.kv_capacity_tokens = serving::kv_capacity_tokens(e.model, e.system, e.deployment.tp, e.serving.memory_fraction);
  if (ro.kv_capacity_tokens <= 0) {
    throw core::Error(core::SourceLocation{e.file, 0, "deployment.tp"},
                      "weights of " + e.model.name + " (" +
                          core::format_quantity(e.model.weight_bytes(), core::Dimension::kBytes) +
                          ") leave no KV cache on " + std::to_string(e.deployment.tp) + " x " +
                          e.system.accelerator.name);
  }

  core::Simulator sim;
  metrics::Recorder recorder;
  serving::Replica replica(sim, e.model, e.system, ro, recorder);
  std::unique_ptr<serving::SessionDriver> driver;
  int concurrency = 0;
  switch (e.workload.mode) {
    case ReplayMode::kClosedLoop: {
      serving::ClosedLoopOptions co;
      concurrency = static_cast<int>(level);
      co.agents = concurrency;
      co.seed = e.seed;
      co.max_context_tokens = e.model.max_context;
      co.start_spread_s = e.workload.start_spread_s;
      co.random_start = e.workload.random_start;
      co.human_gap_cap_s = e.workload.human_gap_cap_s;
      driver = std::make_unique<serving::ClosedLoopDriver>(sim, replica, sessions, co);
      break;
    }
    case ReplayMode::kOpenLoop: {
      serving::OpenLoopOptions oo;
      oo.time_scale = level;
      oo.max_context_tokens = e.model.max_context;
      driver = std::make_unique<serving::OpenLoopDriver>(sim, replica, sessions, oo);
      break;
    }
    case ReplayMode::kPoisson: {
      serving::PoissonOptions po;
      po.sessions_per_s = level;
      po.seed = e.seed;
      po.max_context_tokens = e.model.max_context;
      po.human_gap_cap_s = e.workload.human_gap_cap_s;
      driver = std::make_unique<serving::PoissonSessionDriver>(sim, replica, sessions, po);
      break;
    }
  }
  driver->start();

  const double end_s = e.workload.warmup_s + e.workload.window_s;
  sim.run_until(core::to_ticks(end_s));

  RunResult r;
  r.concurrency = concurrency;
  r.level = level;
  r.summary = metrics::summarize(recorder, e.workload.warmup_s, end_s);
  r.kv_capacity_tokens = ro.kv_capacity_tokens;
  r.turns_truncated = driver->turns_truncated();
  r.events = sim.events_run();
  account_run(r, e, recorder, e.workload.warmup_s, end_s, e.deployment.tp);
  return r;
}

}  // namespace agentsim::exp
