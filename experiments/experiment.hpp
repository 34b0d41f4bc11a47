#pragma once
// A decoded experiment: everything a run needs, typed and validated, with
// resolved catalog entries and an absolute trace path.
#include <cstdint>
#include <string>
#include <vector>

#include "hwmodels/efficiency.hpp"
#include "hwmodels/system.hpp"
#include "workloads/model_spec.hpp"
#include "workloads/session_generator.hpp"

namespace agentsim::exp {

enum class ReplayMode { kClosedLoop, kOpenLoop, kPoisson };

struct WorkloadConfig {
  std::string trace_path;        // resolved relative to the experiment file; empty with a generator
  std::string format;            // a wl::trace_format_names() entry; empty = detect
  ReplayMode mode = ReplayMode::kClosedLoop;
  std::vector<int> concurrency;  // closed loop: agents per run, one run each
  std::vector<double> levels;    // per run: agents (closed), sessions/s (poisson), time scale (open)
  double warmup_s = 0;
  double window_s = 0;
  double start_spread_s = 0;
  bool random_start = false;     // closed loop: first sessions start at a random turn
  double human_gap_cap_s = -1;   // human gaps cut to this (< 0 = as recorded)
  bool use_generator = false;    // sessions come from `generator` instead of a trace
  wl::GeneratorConfig generator;
  int generated_sessions = 1000;
};

struct ServingConfig {
  int tp = 1;
  long long max_batch_tokens = 8192;
  int max_sequences = 256;
  double step_overhead_s = 0;
  double memory_fraction = 0.9;
  hw::Efficiency efficiency;
};

struct Experiment {
  std::string file;   // the YAML it came from
  std::string name;
  std::uint64_t seed = 1;
  wl::ModelSpec model;
  hw::System system;
  ServingConfig serving;
  WorkloadConfig workload;
};

// Reads and validates `path`; every problem is a core::Error naming file, line and key.
// `root` is where the catalogs live.
Experiment load_experiment(const std::string& path, const std::string& root);

}  // namespace agentsim::exp
