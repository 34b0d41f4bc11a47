#pragma once
// Fills a RunResult's power, step breakdown and (if the experiment records them)
// its per-request and per-step tables from the run's records. Pure computation.
#include "experiments/experiment.hpp"
#include "experiments/runner.hpp"
#include "sim/metrics/recorder.hpp"

namespace agentsim::exp {

// Window [start_s, end_s); `accelerators_in_use` = replicas x devices per replica.
// Steps straddling the window edges count by their overlap.
void account_run(RunResult& r, const Experiment& e, const metrics::Recorder& rec, double start_s, double end_s,
                 int accelerators_in_use);

}  // namespace agentsim::exp
