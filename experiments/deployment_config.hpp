#pragma once
// The `deployment` section: how the model is laid out on the system's devices.
#include <span>

#include "experiments/yaml_node.hpp"
#include "hwmodels/system.hpp"
#include "workloads/model_spec.hpp"

namespace agentsim::exp {

struct DeploymentConfig {
  int tp = 1;  // tensor-parallel degree (devices per replica)
};

// Decodes `deployment` (absent = defaults) and checks it fits `model` on `system`.
// The declarations of the keys above, for `agentsim describe` and the search space.
std::span<const OptionSpec> deployment_options();

DeploymentConfig decode_deployment(const YamlNode* dep, const wl::ModelSpec& model, const hw::System& system);

}  // namespace agentsim::exp
