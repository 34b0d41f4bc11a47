#include <array>

#include "experiments/decode_helpers.hpp"
#include "experiments/deployment_config.hpp"

namespace agentsim::exp {

namespace {

constexpr std::array kDeploymentKeys = {
    OptionSpec{"tp", "integer", "1", "tensor-parallel degree (devices per replica)"},
};

}  // namespace

std::span<const OptionSpec> deployment_options() { return kDeploymentKeys; }

DeploymentConfig decode_deployment(const YamlNode* dep, const wl::ModelSpec& model, const hw::System& system) {
  DeploymentConfig d;
  if (!dep) return d;
  dep->check_keys(kDeploymentKeys);
  d.tp = static_cast<int>(bounded_int(*dep, "tp", 1, 1, system.accelerators));
  if (model.kv_heads % d.tp != 0 && d.tp % model.kv_heads != 0) {
    throw dep->at("tp").error("tp must divide or be a multiple of the model's " + std::to_string(model.kv_heads) +
                              " KV heads");
  }
  return d;
}

}  // namespace agentsim::exp
