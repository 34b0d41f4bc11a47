#pragma once
// A decoded experiment: everything a run needs, typed and validated, with
// resolved catalog entries and an absolute trace path.
#include <cstdint>
#include <string>
#include <vector>

#include "hwmodels/efficiency.hpp"
#include "hwmodels/system.hpp"
#include "workloads/model_spec.hpp"

namespace agentsim::exp {

struct WorkloadConfig {
  std::string trace_path;        // resolved relative to the experiment file
  std::string format;            // "claude-code-csv"
  std::vector<int> concurrency;  // agents per run, one run each
  double warmup_s = 0;
  double window_s = 0;
  double start_spread_s = 0;
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
