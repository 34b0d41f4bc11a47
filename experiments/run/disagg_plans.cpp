#include "experiments/run/disagg_plans.hpp"

#include <algorithm>
#include <numeric>

#include "experiments/config/deployment_name.hpp"

namespace agentsim::exp {

int pods_that_fit(int gpus, int prefill, int prefill_devices, int decode, int decode_devices) {
  const long long pod = static_cast<long long>(prefill) * prefill_devices + static_cast<long long>(decode) * decode_devices;
  return pod > 0 && prefill > 0 && decode > 0 ? static_cast<int>(gpus / pod) : 0;
}

std::vector<Plan> split_plans(const Experiment& e, int system, const std::vector<int>& valid,
                              const std::vector<ReplicaBound>& unit, const WorkloadProfile& w, double link_Bps) {
  const int gpus = e.systems.at(static_cast<std::size_t>(system)).accelerators;
  auto make = [&](int prefill, int decode, int a, int b, int pods) {
    const Plan& p = e.plans[static_cast<std::size_t>(prefill)];
    const Plan& d = e.plans[static_cast<std::size_t>(decode)];
    Plan s;
    s.system = system;
    s.deployment = d.deployment;
    s.prefill = p.deployment;
    s.prefill_label = p.label;
    s.prefill_replicas = a * pods;
    s.decode_replicas = b * pods;
    s.label = pools_text(s.decode_replicas, d.label, s.prefill_replicas, p.label);
    s.bound_tok_s = system_bound(e, s, unit[static_cast<std::size_t>(decode)], &unit[static_cast<std::size_t>(prefill)], w, link_Bps);
    s.bound_power_w = bound_power_w(e, s);
    s.bound_prefill_tok_s = static_cast<double>(s.prefill_replicas) * unit[static_cast<std::size_t>(prefill)].prefill_tok_s;
    return s;
  };
  constexpr std::size_t kKeep = 3;  // per decode plan: the simulation decides between neighbouring shapes
  std::vector<Plan> out;
  for (const int d : valid) {
    const ReplicaBound& dec = unit[static_cast<std::size_t>(d)];
    if (dec.decode_tok_s <= 0) continue;
    std::vector<Plan> best;
    for (const int p : valid) {
      const ReplicaBound& pre = unit[static_cast<std::size_t>(p)];
      if (pre.prefill_tok_s <= 0) continue;
      for (int b = 1; b <= kMaxPodDecodeReplicas; ++b) {
        for (int a = 1; a <= kMaxPodPrefillReplicas; ++a) {
          if (std::gcd(a, b) != 1) continue;  // (2a, 2b) is (a, b) in twice the pods
          const int pods = pods_that_fit(gpus, a, pre.devices, b, dec.devices);
          if (pods > 0) best.push_back(make(p, d, a, b, pods));
        }
      }
    }
    // Highest bound per watt first, ties (the same decode pool binds) to the larger prefill pool
    // (its prompts queue less), then enumeration order (deterministic); as rank_by_bound orders them.
    std::stable_sort(best.begin(), best.end(), [&](const Plan& x, const Plan& y) {
      if (bound_per_w(x) != bound_per_w(y)) return bound_per_w(x) > bound_per_w(y);
      return x.bound_prefill_tok_s > y.bound_prefill_tok_s;
    });
    for (std::size_t i = 0; i < best.size() && i < kKeep; ++i) out.push_back(std::move(best[i]));
  }
  return out;
}

}  // namespace agentsim::exp
