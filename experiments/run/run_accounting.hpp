#pragma once
// Fills a RunResult's power, step breakdown and (if the experiment records them)
// its per-request and per-step tables from the run's records. Pure computation.
#include "experiments/config/experiment.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/runner.hpp"
#include "sim/metrics/recorder.hpp"

namespace agentsim::exp {

// Over the window of `spec`; `accelerators_in_use` = replicas x the plan's devices per replica,
// each of which runs every step of its replica. Steps straddling the window edges count by their overlap.
void account_run(RunResult& r, const Experiment& e, const RunSpec& spec, const metrics::Recorder& rec,
                 int accelerators_in_use);

}  // namespace agentsim::exp
