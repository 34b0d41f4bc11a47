#pragma once
// Prices the collectives of one placed plan: TP all-reduce, EP all-to-all and
// PP send/recv over the system's topology with a CollectiveModel fidelity,
// tabulated once over message sizes (powers of two, 1 B .. 16 GiB) and
// interpolated linearly in bytes per step (alpha-beta costs are linear in
// bytes within an algorithm), so the event loop never builds a schedule.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "hwmodels/collective_model.hpp"
#include "hwmodels/system.hpp"
#include "hwmodels/topology.hpp"
#include "sim/serving/replica_plan.hpp"
#include "workloads/model/op.hpp"

namespace agentsim::serving {

enum class CollectiveFidelity { kAnalytical, kFlow };

class CollectivePricer {
 public:
  CollectivePricer(const hw::System& system, const wl::ParallelPlan& plan,
                   CollectiveFidelity fidelity = CollectiveFidelity::kAnalytical);
  // `bytes` per member per occurrence; a kind the plan has no group for costs nothing ("none").
  hw::CollectiveCost price(wl::CollectiveOp kind, double bytes) const;
  const PlanPlacement& placement() const { return placement_; }
  std::string_view fidelity() const;

 private:
  static constexpr int kSizes = 35;
  using Table = std::array<hw::CollectiveCost, kSizes>;
  static hw::CollectiveCost interpolate(const Table& t, double bytes);

  PlanPlacement placement_;
  CollectiveFidelity fidelity_;
  Table all_reduce_{}, all_to_all_{}, send_recv_{};
  bool has_all_reduce_ = false, has_all_to_all_ = false, has_send_recv_ = false;
};

}  // namespace agentsim::serving
