#pragma once
// The `workload` section of an experiment: where sessions come from and how
// they are replayed.
#include <span>
#include <string>
#include <vector>

#include "sim/core/yaml_node.hpp"
#include "workloads/sessions/session_generator.hpp"
#include "workloads/sessions/tool_delay.hpp"

namespace agentsim::exp {

enum class ReplayMode { kClosedLoop, kOpenLoop, kPoisson };

struct WorkloadConfig {
  std::string trace_path;        // resolved relative to the experiment file; empty with a generator
  std::string format;            // a wl::trace_format_names() entry; empty = detect
  ReplayMode mode = ReplayMode::kClosedLoop;
  std::vector<int> concurrency;  // closed loop: agents per run, one run each (empty with auto)
  std::vector<double> levels;    // per run: agents (closed), sessions/s (poisson), time scale (open);
                                 // with auto: the doubling ladder 1, 2, 4, ... max_concurrency it may run
  bool auto_concurrency = false; // closed loop `concurrency: auto`: double until every target is bracketed
  int max_concurrency = 16384;   // auto: the ladder's top
  double concurrency_tolerance = 0.02;  // auto: each bracket narrowed to within this fraction of agents
  int max_probes = 6;            // auto: at most this many narrowing runs per bracket
  double warmup_s = 0;
  double window_s = 0;
  double start_spread_s = 0;
  bool random_start = false;     // closed loop: first sessions start at a random turn
  long long session_limit = 0;   // closed loop: > 0 = a finite run of this many root sessions, its
                                 // window ending with the last answer (a benchmark's N prompts)
  double human_gap_cap_s = -1;   // human gaps cut to this (< 0 = as recorded)
  double tool_gap_cap_s = -1;    // tool gaps cut to this (< 0 = as recorded)
  bool use_generator = false;    // sessions come from `generator` (or a profile) instead of a trace
  std::string profile;           // named session profile (workloads/catalog/profiles/<name>.yaml); empty = none
  wl::GeneratorConfig generator;
  int generated_sessions = 1000;
  // Trace replay under a context limit: 0 = the model's limit (the default); > 0 = tokens. Turns
  // over it are truncated as a harness does. Generated sessions keep their generator's limit.
  long long max_context_tokens = 0;
  double truncated_context_fraction = 0.5;  // prompt after a truncation, share of the limit
  core::SourceLocation max_context_at;      // where max_context was given, for errors found at load
  wl::ToolDelay tool_delay;                 // trace replay: recorded, scaled or drawn tool delays
};

// Applies the replay rules (max_context, tool_delay) to a loaded trace; `model_max_context`
// stands in for `max_context: model`. A limit below the shortest prompt is an error at max_context.
void apply_replay_rules(wl::Trace& trace, const WorkloadConfig& w, long long model_max_context, std::uint64_t seed);

// Decodes `workload`; relative paths resolve against `experiment_path`'s folder.
// The declarations of the keys above, for `agentsim describe`.
std::span<const core::OptionSpec> workload_options();

WorkloadConfig decode_workload(const core::YamlNode& wl, const std::string& experiment_path);

}  // namespace agentsim::exp
