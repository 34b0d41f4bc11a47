#pragma once
// A decoded experiment: everything a run needs, typed and validated, with
// resolved catalog entries and an absolute trace path.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/deployment_config.hpp"
#include "experiments/serving_config.hpp"
#include "experiments/workload_config.hpp"
#include "hwmodels/system.hpp"
#include "workloads/model_spec.hpp"

namespace agentsim::exp {

struct Experiment {
  std::string file;   // the YAML it came from
  std::string name;
  std::uint64_t seed = 1;
  wl::ModelSpec model;
  hw::System system;
  DeploymentConfig deployment;
  ServingConfig serving;
  WorkloadConfig workload;
};

// Reads and validates `path`; every problem is a core::Error naming file, line and key.
// `root` is where the catalogs live.
Experiment load_experiment(const std::string& path, const std::string& root);

}  // namespace agentsim::exp
