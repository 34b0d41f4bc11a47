#pragma once
// A cluster served as independent routing pods: each pod has its own router, an even
// share of the replicas and of the load (agents, session rate), and its own seed, so pods
// can be simulated in parallel and merged in pod order with results independent of threads.
#include <cstdint>
#include <string>

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

}  // namespace agentsim::serving
