#pragma once
// The report.html sink: one self-contained page (inline CSS and SVG, no external
// resources) with the read-off table and plots: tokens/s per MW against per-agent
// speed (read-offs marked), TTFT against concurrency, the step-time breakdown and
// the cache hit rate. It formats; every figure comes from the outcome.
#include <string>

#include "experiments/experiment.hpp"
#include "experiments/sweep_outcome.hpp"

namespace agentsim::exp {

std::string report_html(const Experiment& e, const SweepOutcome& outcome);

}  // namespace agentsim::exp
