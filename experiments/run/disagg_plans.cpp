#include "experiments/run/disagg_plans.hpp"

#include "experiments/config/deployment_name.hpp"

namespace agentsim::exp {

int decode_replicas_left(int gpus, int prefill_replicas, int prefill_devices, int decode_devices) {
  const int left = gpus - prefill_replicas * prefill_devices;
  return left > 0 && decode_devices > 0 ? left / decode_devices : 0;
}

std::vector<Plan> split_plans(const Experiment& e, int system, const std::vector<int>& valid,
                              const std::vector<ReplicaBound>& unit, const WorkloadProfile& w, double link_Bps) {
  const int gpus = e.systems.at(static_cast<std::size_t>(system)).accelerators;
  auto make = [&](int prefill, int np, int decode) {
    const Plan& p = e.plans[static_cast<std::size_t>(prefill)];
    const Plan& d = e.plans[static_cast<std::size_t>(decode)];
    Plan s;
    s.system = system;
    s.deployment = d.deployment;
    s.prefill = p.deployment;
    s.prefill_label = p.label;
    s.prefill_replicas = np;
    s.decode_replicas = decode_replicas_left(gpus, np, p.deployment.plan.devices(), d.deployment.plan.devices());
    s.label = pools_text(s.decode_replicas, d.label, np, p.label);
    s.bound_tok_s = system_bound(e, s, unit[static_cast<std::size_t>(decode)], &unit[static_cast<std::size_t>(prefill)], w, link_Bps);
    return s;
  };
  std::vector<Plan> out;
  for (const int d : valid) {
    const ReplicaBound& dec = unit[static_cast<std::size_t>(d)];
    if (dec.decode_tok_s <= 0) continue;
    int best_p = -1, best_np = 0;
    double best = 0;
    for (const int p : valid) {
      const ReplicaBound& pre = unit[static_cast<std::size_t>(p)];
      if (pre.prefill_tok_s <= 0) continue;
      for (int np = 1; decode_replicas_left(gpus, np, pre.devices, dec.devices) > 0; ++np) {
        const double b = make(p, np, d).bound_tok_s;
        if (b > best) best = b, best_p = p, best_np = np;
      }
    }
    if (best_p < 0) continue;
    const int pre_devices = unit[static_cast<std::size_t>(best_p)].devices;
    for (const int np : {best_np - 1, best_np, best_np + 1}) {
      if (np >= 1 && decode_replicas_left(gpus, np, pre_devices, dec.devices) > 0) out.push_back(make(best_p, np, d));
    }
  }
  return out;
}

}  // namespace agentsim::exp
