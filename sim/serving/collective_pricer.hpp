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
#include "sim/serving/kernel_efficiency.hpp"
#include "sim/serving/replica_plan.hpp"
#include "workloads/model/op.hpp"

namespace agentsim::serving {

enum class CollectiveFidelity { kAnalytical, kFlow };

class CollectivePricer {
 public:
  // `measured`: where it has a single-system all-reduce table, the TP all-reduce is that
  // table's time at each size instead of the topology model's (read at construction only).
  CollectivePricer(const hw::System& system, const wl::ParallelPlan& plan,
                   CollectiveFidelity fidelity = CollectiveFidelity::kAnalytical,
                   const KernelEfficiency* measured = nullptr);
  // `bytes` per member per occurrence; a kind the plan has no group for costs nothing ("none").
  hw::CollectiveCost price(wl::CollectiveOp kind, double bytes) const;
  const PlanPlacement& placement() const { return placement_; }
  std::string_view fidelity() const;
  // How the TP all-reduce is priced: the fidelity's model, or "measured, <table>".
  std::string all_reduce_source() const { return all_reduce_source_.empty() ? std::string(fidelity()) : all_reduce_source_; }

 private:
  static constexpr int kSizes = 35;
  using Table = std::array<hw::CollectiveCost, kSizes>;
  static hw::CollectiveCost interpolate(const Table& t, double bytes);

  PlanPlacement placement_;
  CollectiveFidelity fidelity_;
  Table all_reduce_{}, all_to_all_{}, send_recv_{};
  bool has_all_reduce_ = false, has_all_to_all_ = false, has_send_recv_ = false;
  std::string all_reduce_source_;  // empty: the topology model
};

}  // namespace agentsim::serving
