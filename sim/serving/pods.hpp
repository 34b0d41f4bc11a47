#pragma once
// A cluster served as independent routing pods: each pod has its own router, an even
// share of the replicas and of the load (agents, session rate), and its own seed, so pods
// can be simulated in parallel and merged in pod order with results independent of threads.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/rng.hpp"

namespace agentsim::serving {

// Pod `p`'s share of `total` over `pods` pods: the first total % pods pods get one more.
inline long long pod_share(long long total, int pods, int p) {
  return total / pods + (p < total % pods ? 1 : 0);
}

// Pod `p`'s seed: pod 0 keeps `seed` (one pod is the plain cluster), the others derive theirs.
inline std::uint64_t pod_seed(std::uint64_t seed, int p) {
  return p == 0 ? seed : core::derive_seed(seed, "pod/" + std::to_string(p));
}

// Pods that share one (replicas, load) split: `first` stands for `count` pods.
struct PodClass {
  int first = 0;
  int count = 0;
};

// The distinct shares of `replicas` and `load` over `pods` pods (pod_share), in pod order: at
// most three, since each total gives its first total % pods pods one more.
inline std::vector<PodClass> pod_classes(long long replicas, long long load, int pods) {
  const int a = static_cast<int>(replicas % pods), b = static_cast<int>(load % pods);
  std::vector<int> cuts = {0, std::min(a, b), std::max(a, b), pods};
  std::vector<PodClass> out;
  for (std::size_t i = 0; i + 1 < cuts.size(); ++i) {
    if (cuts[i + 1] > cuts[i]) out.push_back({cuts[i], cuts[i + 1] - cuts[i]});
  }
  return out;
}

}  // namespace agentsim::serving
