#pragma once
// The `workload` section of an experiment: where sessions come from and how
// they are replayed.
#include <span>
#include <string>
#include <vector>

#include "sim/core/yaml_node.hpp"
#include "workloads/sessions/session_generator.hpp"

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
  bool use_generator = false;    // sessions come from `generator` instead of a trace
  wl::GeneratorConfig generator;
  int generated_sessions = 1000;
};

// Decodes `workload`; relative paths resolve against `experiment_path`'s folder.
// The declarations of the keys above, for `agentsim describe`.
std::span<const core::OptionSpec> workload_options();

WorkloadConfig decode_workload(const core::YamlNode& wl, const std::string& experiment_path);

}  // namespace agentsim::exp
