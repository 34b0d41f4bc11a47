#include "experiments/config/deployment_name.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace agentsim::exp {

std::string pools_text(int replicas, const std::string& plan, int prefill_replicas, const std::string& prefill_plan) {
  auto pool = [](int n, const std::string& text) { return std::to_string(n) + "x(" + text + ")"; };
  if (prefill_replicas <= 0) return pool(replicas, plan);
  return "P " + pool(prefill_replicas, prefill_plan) + " + D " + pool(replicas, plan);
}

std::string format_deployment(const std::string& pools, long long used_gpus, int system_gpus) {
  if (system_gpus <= 0) return pools;
  const long long systems = std::max<long long>(1, (used_gpus + system_gpus - 1) / system_gpus);
  const long long total = systems * system_gpus;
  std::string out = pools + " on " + std::to_string(used_gpus);
  if (used_gpus < total) out += " of " + std::to_string(total);
  out += " GPUs";
  if (used_gpus < total) out += " (" + std::to_string(total - used_gpus) + " idle)";
  return out;
}

int unified_replicas(const Experiment& e, const Plan& p) {
  const hw::System& sys = e.systems.at(static_cast<std::size_t>(p.system));
  return e.serving.replicas > 0 ? e.serving.replicas : std::max(1, sys.accelerators / p.deployment.plan.devices());
}

long long deployment_gpus(const Experiment& e, const Plan& p) {
  const long long devices = p.deployment.plan.devices();
  if (p.prefill_replicas > 0) return p.prefill_replicas * static_cast<long long>(p.prefill.plan.devices()) + p.decode_replicas * devices;
  if (e.serving.prefill_replicas > 0) return (e.serving.prefill_replicas + static_cast<long long>(e.serving.decode_replicas)) * devices;
  return unified_replicas(e, p) * devices;
}

void check_split_fits(const Experiment& e) {
  const int most = e.serving.disaggregation_systems;
  if (most <= 0 || e.serving.prefill_replicas <= 0) return;
  for (const Plan& p : e.plans) {
    if (!p.pruned.empty()) continue;
    const hw::System& sys = e.systems.at(static_cast<std::size_t>(p.system));
    const long long gpus = deployment_gpus(e, p), room = static_cast<long long>(most) * sys.accelerators;
    if (gpus > room) {
      throw core::Error(e.serving.disaggregation_at,
                        "expected a prefill/decode split that fits in " + std::to_string(most) + " " + sys.name +
                            " system(s) (" + std::to_string(room) + " GPUs): " + std::to_string(e.serving.prefill_replicas) +
                            " prefill + " + std::to_string(e.serving.decode_replicas) + " decode replicas of " + p.label +
                            " need " + std::to_string(gpus));
    }
  }
}

std::string deployment_name(const Experiment& e, const Plan& p) {
  const int gpus = e.systems.at(static_cast<std::size_t>(p.system)).accelerators;
  std::string pools;
  if (p.prefill_replicas > 0) {
    pools = p.label;  // a searched split is labelled by its pools
  } else if (e.serving.prefill_replicas > 0) {
    pools = pools_text(e.serving.decode_replicas, p.label, e.serving.prefill_replicas, p.label);
  } else {
    pools = pools_text(unified_replicas(e, p), p.label);
  }
  return format_deployment(pools, deployment_gpus(e, p), gpus);
}

}  // namespace agentsim::exp
