#pragma once
// Picks the replica for each request: round robin, least loaded (fewest queued
// plus running requests), session affinity (a session tree stays where its first
// turn went, chosen least loaded), or KV-aware (fewest prompt tokens to compute
// there plus its pending prefill tokens, i.e. cached-prefix overlap against load).
// Ties go to the lowest index.
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/flat_index.hpp"
#include "sim/core/min_tree.hpp"
#include "sim/core/name_table.hpp"
#include "sim/serving/replica.hpp"

namespace agentsim::serving {

enum class RouterPolicy { kRoundRobin, kLeastLoaded, kSessionAffinity, kKvAware };
// The names of `serving.router`.
inline constexpr core::NameTable<RouterPolicy, 4> kRouterPolicyNames = {{
    {"round_robin", RouterPolicy::kRoundRobin},
    {"least_loaded", RouterPolicy::kLeastLoaded},
    {"session_affinity", RouterPolicy::kSessionAffinity},
    {"kv_aware", RouterPolicy::kKvAware}}};

class Router {
 public:
  explicit Router(RouterPolicy policy) : policy_(policy) {}
  // Index into `replicas` (non-empty) for `r`. `loads`, when given, mirrors every
  // replica's load() (Replica::mirror_load): least-loaded picks read its minimum
  // instead of scanning the replicas (the same pick).
  std::size_t pick(const Request& r, const std::vector<Replica*>& replicas, const core::MinTree* loads = nullptr);

 private:
  static std::size_t least_loaded(const std::vector<Replica*>& replicas, const core::MinTree* loads);
  RouterPolicy policy_;
  std::size_t next_ = 0;
  core::FlatIndex affinity_index_;    // session tree -> index into affinity_
  std::vector<std::size_t> affinity_;  // the tree's replica
};

}  // namespace agentsim::serving
