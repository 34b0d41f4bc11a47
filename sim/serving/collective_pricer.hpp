#pragma once
// Prices the collectives of one placed plan: TP all-reduce, EP all-to-all (or, for a plan
// without an all-to-all backend, EP all-gather and reduce-scatter) and PP send/recv over the
// topology of the systems the plan spans (one, or several joined by their scale-out NICs: a
// group's off-system traffic crosses the NICs at their bandwidth and latency) with a
// CollectiveModel fidelity, tabulated once over message sizes (powers of two, 1 B .. 16 GiB) and
// interpolated linearly in bytes per step (alpha-beta costs are linear in
// bytes within an algorithm), so the event loop never builds a schedule.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "hwmodels/cluster_hardware.hpp"
#include "hwmodels/collective_model.hpp"
#include "hwmodels/system.hpp"
#include "hwmodels/topology.hpp"
#include "sim/serving/kernel_efficiency.hpp"
#include "sim/serving/replica_plan.hpp"
#include "workloads/model/op.hpp"

namespace agentsim::serving {

enum class CollectiveFidelity { kAnalytical, kFlow };

// Where one group's collective runs, as its first member sees it: the systems the group
// spans and the links to its peers (scale-up within a system, the NICs to the others).
struct CollectiveGroup {
  std::string name;        // "tp", "ep", "pp"
  std::string collective;  // "all-reduce", "all-to-all", "send/recv"
  int members = 0;
  int systems = 1;
  int off_system_peers = 0;
  double scale_up_bw_Bps = 0, scale_up_latency_s = 0;    // bottleneck and latency of on-system routes (0: none)
  double scale_out_bw_Bps = 0, scale_out_latency_s = 0;  // of off-system routes (NIC, leaf, spine; 0: none)
  // e.g. "scale-up 450 GB/s, 0.50 us + NIC 50 GB/s, 5.50 us (8 of 15 peers off-system)".
  std::string links() const;
};

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
  // The TP, EP and PP (first stage boundary) groups with the links they cross.
  const std::vector<CollectiveGroup>& groups() const { return groups_; }
  std::string_view fidelity() const;
  // How the TP all-reduce is priced: the fidelity's model, or "measured, <table>".
  std::string all_reduce_source() const { return all_reduce_source_.empty() ? std::string(fidelity()) : all_reduce_source_; }

 private:
  static constexpr int kSizes = 35;
  using Table = std::array<hw::CollectiveCost, kSizes>;
  static hw::CollectiveCost interpolate(const Table& t, double bytes);

  static CollectiveGroup describe(const hw::Topology& topo, std::string name, std::string collective,
                                  const std::vector<int>& members);

  PlanPlacement placement_;
  std::vector<CollectiveGroup> groups_;
  CollectiveFidelity fidelity_;
  Table all_reduce_{}, all_to_all_{}, all_gather_{}, reduce_scatter_{}, send_recv_{};
  bool has_all_reduce_ = false, has_all_to_all_ = false, has_gather_scatter_ = false, has_send_recv_ = false;
  std::string all_reduce_source_;  // empty: the topology model
};

}  // namespace agentsim::serving
