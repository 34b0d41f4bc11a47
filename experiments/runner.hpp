#pragma once
// Runs an experiment: one simulation per concurrency level, each measured over
// its window after warm-up. Pure computation; sinks write the results.
#include <vector>

#include "experiments/experiment.hpp"
#include "sim/metrics/summary.hpp"
#include "workloads/session.hpp"

namespace agentsim::exp {

struct RunResult {
  int concurrency = 0;  // closed-loop agents (0 in the open modes)
  double level = 0;     // agents, sessions/s (poisson) or time scale (open loop)
  metrics::Summary summary;
  long long kv_capacity_tokens = 0;
  long long turns_truncated = 0;   // prompts cut to the model's context
  unsigned long long events = 0;   // simulator events run
};

// One run at `level` (see RunResult::level) over `sessions`, in the experiment's replay mode.
RunResult run_point(const Experiment& e, const wl::Trace& sessions, double level);

// Loads the experiment's trace or generates its sessions (errors name the trace file).
wl::Trace load_sessions(const Experiment& e);

}  // namespace agentsim::exp
