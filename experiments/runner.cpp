#include "experiments/runner.hpp"

#include "sim/core/error.hpp"
#include "sim/core/simulator.hpp"
#include "sim/core/units.hpp"
#include "sim/serving/closed_loop_driver.hpp"
#include "sim/serving/replica.hpp"
#include "workloads/claude_code_csv.hpp"

namespace agentsim::exp {

std::vector<wl::Session> load_sessions(const Experiment& e) {
  auto sessions = wl::load_claude_code_csv(e.workload.trace_path);
  if (sessions.empty()) {
    throw core::Error(core::SourceLocation{e.workload.trace_path, 0, ""}, "trace holds no sessions");
  }
  return sessions;
}

RunResult run_point(const Experiment& e, const std::vector<wl::Session>& sessions, int concurrency) {
  serving::ReplicaOptions ro;
  ro.cost.tp = e.serving.tp;
  ro.cost.efficiency = e.serving.efficiency;
  ro.cost.step_overhead_s = e.serving.step_overhead_s;
  ro.max_batch_tokens = e.serving.max_batch_tokens;
  ro.max_sequences = e.serving.max_sequences;
  ro.kv_capacity_tokens = serving::kv_capacity_tokens(e.model, e.system, e.serving.tp, e.serving.memory_fraction);
  if (ro.kv_capacity_tokens <= 0) {
    throw core::Error(core::SourceLocation{e.file, 0, "deployment.tp"},
                      "weights of " + e.model.name + " (" +
                          core::format_quantity(e.model.weight_bytes(), core::Dimension::kBytes) +
                          ") leave no KV cache on " + std::to_string(e.serving.tp) + " x " +
                          e.system.accelerator.name);
  }

  core::Simulator sim;
  metrics::Recorder recorder;
  serving::Replica replica(sim, e.model, e.system, ro, recorder);
  serving::ClosedLoopOptions co;
  co.agents = concurrency;
  co.seed = e.seed;
  co.max_context_tokens = e.model.max_context;
  co.start_spread_s = e.workload.start_spread_s;
  serving::ClosedLoopDriver driver(sim, replica, sessions, co);
  driver.start();

  const double end_s = e.workload.warmup_s + e.workload.window_s;
  sim.run_until(core::to_ticks(end_s));

  RunResult r;
  r.concurrency = concurrency;
  r.summary = metrics::summarize(recorder, e.workload.warmup_s, end_s);
  r.kv_capacity_tokens = ro.kv_capacity_tokens;
  r.turns_truncated = driver.turns_truncated();
  r.events = sim.events_run();
  return r;
}

}  // namespace agentsim::exp
