#pragma once
// Replicas behind a router, as one RequestSink. Unified: every replica prefills
// and decodes. Disaggregated: the router picks a prefill replica; when the
// prompt is done its KV crosses the topology (route latency + bytes / bottleneck
// bandwidth, each device sending its shard in parallel) to the least-loaded
// decode replica, which then decodes.
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "hwmodels/topology.hpp"
#include "sim/metrics/cache_counters.hpp"
#include "sim/serving/replica.hpp"
#include "sim/serving/router.hpp"

namespace agentsim::serving {

struct ClusterOptions {
  int replicas = 1;               // unified replicas (when prefill_replicas == 0)
  int prefill_replicas = 0;       // > 0: disaggregated, with decode_replicas decoding
  int decode_replicas = 0;
  RouterPolicy router = RouterPolicy::kRoundRobin;
  int devices_per_replica = 1;    // replica i holds devices [i * d, (i + 1) * d) of the topology
};

class Cluster : public RequestSink {
 public:
  // `topology` (needed when disaggregated) must outlive the cluster.
  Cluster(core::Simulator& sim, const wl::ModelSpec& model, const hw::System& system, const ReplicaOptions& base,
          ClusterOptions opt, metrics::Recorder& recorder, const hw::Topology* topology = nullptr);

  void submit(const Request& r, CompletionFn done) override;

  std::size_t size() const { return replicas_.size(); }
  Replica& replica(std::size_t i) { return *replicas_[i]; }
  // Every replica's counters summed, plus the KV transfers.
  metrics::CacheCounters counters() const;
  // Seconds to move `tokens` of KV from replica `from` to replica `to`.
  double transfer_s(int from, int to, long long tokens);

 private:
  void handoff(int from, const Request& r, const metrics::RequestRecord& rec, CompletionFn done);

  core::Simulator& sim_;
  ClusterOptions opt_;
  const hw::Topology* topology_;
  double kv_bytes_per_token_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Replica*> front_, back_;  // prefill (or unified) pool, decode pool
  core::MinTree front_loads_, back_loads_;  // their loads, mirrored by the replicas
  Router router_;
  Router decode_router_{RouterPolicy::kLeastLoaded};
  std::map<std::pair<int, int>, std::pair<double, double>> routes_;  // (from, to) -> (latency_s, Bps)
  metrics::CacheCounters transfers_;
};

}  // namespace agentsim::serving
