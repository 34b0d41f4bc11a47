#pragma once
// Replicas behind a router, as one RequestSink. Unified: every replica prefills
// and decodes. Disaggregated: the router picks a prefill replica (prompts queue
// there); when the prompt is done its KV crosses the topology to the least-loaded
// decode replica, landing on one of its attention-DP ranks (round robin), which
// then decodes. Each device of the sending rank streams its share to a device of
// the receiving rank; a stream occupies every link of its route for bytes /
// bottleneck bandwidth, first come first served, so transfers sharing a link
// (a NIC, an NVLink port) queue behind each other, plus the route latency.
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
  // Disaggregated: how a prefilled request picks its decode replica (least loaded, or Dynamo's
  // frontend default, round robin, blind to which replica has a free slot).
  RouterPolicy decode_router = RouterPolicy::kLeastLoaded;
  int devices_per_replica = 1;    // replica i holds devices [i * d, (i + 1) * d) of the topology
  // Disaggregated: devices of each prefill replica (0 = devices_per_replica); the prefill pool holds
  // the first prefill_replicas x this devices, the decode pool the devices after them.
  int prefill_devices_per_replica = 0;
};

class Cluster : public RequestSink {
 public:
  // `topology` (needed when disaggregated) must outlive the cluster. `base` configures the unified
  // or decode replicas, `prefill` (null: `base`) the prefill replicas.
  Cluster(core::Simulator& sim, const wl::ModelSpec& model, const hw::System& system, const ReplicaOptions& base,
          ClusterOptions opt, metrics::Recorder& recorder, const hw::Topology* topology = nullptr,
          const ReplicaOptions* prefill = nullptr);

  void submit(const Request& r, CompletionFn done) override;

  std::size_t size() const { return replicas_.size(); }
  Replica& replica(std::size_t i) { return *replicas_[i]; }
  // Every replica's counters summed, plus the KV transfers.
  metrics::CacheCounters counters() const;
  // Seconds to move `tokens` of KV from replica `from` to replica `to` over idle links.
  double transfer_s(int from, int to, long long tokens);
  // Books the move of `tokens` of KV from prefill replica `from` to attention-DP rank `rank` of
  // replica `to`, starting now, on links that earlier bookings may still occupy; returns the
  // seconds from now until the last of it has arrived.
  double reserve_transfer(int from, int to, int rank, long long tokens);
  // The first topology device of replica `i`.
  int first_device(int i) const;

 private:
  void handoff(int from, const Request& r, const metrics::RequestRecord& rec, CompletionFn done);
  const hw::Route& route(int a, int b);

  core::Simulator& sim_;
  ClusterOptions opt_;
  const hw::Topology* topology_;
  double kv_bytes_per_token_;
  std::vector<std::unique_ptr<Replica>> replicas_;
  std::vector<Replica*> front_, back_;  // prefill (or unified) pool, decode pool
  core::MinTree front_loads_, back_loads_;  // their loads, mirrored by the replicas
  Router router_;
  Router decode_router_;
  std::map<std::pair<int, int>, hw::Route> routes_;  // (device, device) -> route
  std::vector<double> link_free_s_;                  // per directed link: when its last booking ends
  wl::ParallelPlan prefill_plan_, decode_plan_;
  std::vector<int> next_rank_;                       // per replica: the DP rank the next KV lands on
  metrics::CacheCounters transfers_;
};

}  // namespace agentsim::serving
