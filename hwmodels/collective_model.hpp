#pragma once
// Cost of collectives over a group of GPUs on a Topology, behind one
// interface with two fidelities:
//  - AnalyticalCollectiveModel: alpha-beta per phase; alpha = the slowest
//    route's summed latency, beta from the most loaded link (its bytes over
//    its bandwidth), which is the route bottleneck when links are not shared;
//  - FlowCollectiveModel: the same phases, with concurrent transfers sharing
//    each link's bandwidth max-min fairly until each finishes.
// The algorithm is chosen by size (ring vs tree vs hierarchical all-reduce;
// ring vs hierarchical reduce-scatter and all-gather): the cheapest under the
// model wins.
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hwmodels/collective_schedule.hpp"
#include "hwmodels/topology.hpp"

namespace agentsim::hw {

enum class CollectiveKind { kAllReduce, kReduceScatter, kAllGather, kAllToAll };
std::string_view to_string(CollectiveKind k);

struct CollectiveCost {
  std::string algorithm;   // "ring", "tree", "hierarchical", "direct", "p2p", "none"
  double latency_s = 0;    // alpha terms
  double transfer_s = 0;   // beta terms
  int steps = 0;           // phases run, repeats included
  bool measured = false;   // a measured table's time (all in transfer_s): no network efficiency applies
  double total_s() const { return latency_s + transfer_s; }
};

class CollectiveModel {
 public:
  // The model keeps a reference: `topology` must outlive it. Not thread-safe
  // (it memoises routes): use one model per thread.
  explicit CollectiveModel(const Topology& topology) : topo_(topology) {}
  virtual ~CollectiveModel() = default;
  virtual std::string_view fidelity() const = 0;

  // `bytes` per member (see collective_schedule.hpp); members are GPU indices.
  CollectiveCost collective(CollectiveKind kind, const std::vector<int>& group, double bytes) const;
  CollectiveCost point_to_point(int src, int dst, double bytes) const;
  // Prices a schedule phase by phase.
  CollectiveCost run(const Schedule& s) const;
  // Completion time of each transfer when all start together (latency included).
  std::vector<double> concurrent(const std::vector<Transfer>& transfers) const;

 protected:
  // Seconds of transfer (latency excluded) until every transfer of the phase
  // has finished, and each transfer's own finish time.
  virtual std::vector<double> finish_times(const std::vector<Route>& routes,
                                           const std::vector<Transfer>& transfers) const = 0;
  const Topology& topo_;

 private:
  const Route& route(int src, int dst) const;
  mutable std::map<std::pair<int, int>, Route> routes_;  // memo: topology is immutable
};

class AnalyticalCollectiveModel final : public CollectiveModel {
 public:
  using CollectiveModel::CollectiveModel;
  std::string_view fidelity() const override { return "analytical"; }

 protected:
  std::vector<double> finish_times(const std::vector<Route>& routes,
                                   const std::vector<Transfer>& transfers) const override;
};

class FlowCollectiveModel final : public CollectiveModel {
 public:
  using CollectiveModel::CollectiveModel;
  std::string_view fidelity() const override { return "flow"; }

 protected:
  std::vector<double> finish_times(const std::vector<Route>& routes,
                                   const std::vector<Transfer>& transfers) const override;
};

}  // namespace agentsim::hw
