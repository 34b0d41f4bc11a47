#pragma once
// Fits a GeneratorConfig to a trace: each log-normal takes the trace's median
// and p90 of the matching quantity; fractions are counted; then growth's link to
// session length (growth_length_exponent) and growth's scale are searched so the
// generated per-turn prompt p90 and growth median match the trace's.
#include "workloads/sessions/session_generator.hpp"
#include "workloads/sessions/trace_stats.hpp"

namespace agentsim::wl {

GeneratorConfig fit_generator(const Trace& trace);

// The quantities the generator reproduces, measured on any trace (root sessions only).
struct GeneratorTargets {
  Distribution turns, initial_context, growth, output, tool_gap, human_gap;
  Distribution prompt;  // input tokens of every turn
  double human_gap_fraction = 0;
  double compaction_probability = 0;
};
GeneratorTargets measure_targets(const Trace& trace);

}  // namespace agentsim::wl
