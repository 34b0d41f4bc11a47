#include "sim/serving/router.hpp"

namespace agentsim::serving {

std::size_t Router::least_loaded(const std::vector<Replica*>& replicas, const core::MinTree* loads) {
  if (loads != nullptr) return loads->argmin();
  std::size_t best = 0;
  long long best_load = replicas[0]->load();
  // Loads are never negative: the first idle replica is the lowest-index minimum.
  for (std::size_t i = 1; i < replicas.size() && best_load > 0; ++i) {
    const long long l = replicas[i]->load();
    if (l < best_load) {
      best = i;
      best_load = l;
    }
  }
  return best;
}

std::size_t Router::pick(const Request& r, const std::vector<Replica*>& replicas, const core::MinTree* loads) {
  switch (policy_) {
    case RouterPolicy::kRoundRobin: return next_++ % replicas.size();
    case RouterPolicy::kLeastLoaded: return least_loaded(replicas, loads);
    case RouterPolicy::kSessionAffinity: {
      std::uint64_t key = 0;
      if (r.trace && r.turn.valid()) {
        const auto& s = r.trace->sessions[static_cast<std::size_t>(r.turn.session)];
        const auto root = static_cast<std::uint64_t>(s.root >= 0 ? s.root : r.turn.session);
        key = ((root << 32) ^ static_cast<std::uint32_t>(r.agent)) << 1;
      } else {
        key = (static_cast<std::uint64_t>(static_cast<std::uint32_t>(r.agent)) << 1) | 1;
      }
      const std::uint32_t i = affinity_index_.find_or_add(key);
      if (i < affinity_.size()) return affinity_[i];
      affinity_.push_back(least_loaded(replicas, loads));
      return affinity_.back();
    }
    case RouterPolicy::kKvAware: {
      std::size_t best = 0;
      long long best_cost = -1;
      for (std::size_t i = 0; i < replicas.size(); ++i) {
        const long long cost = r.input_tokens - replicas[i]->kv().cached_prefix_tokens(r) +
                               replicas[i]->pending_prefill_tokens();
        if (best_cost < 0 || cost < best_cost) {
          best = i;
          best_cost = cost;
        }
      }
      return best;
    }
  }
  return 0;
}

}  // namespace agentsim::serving
