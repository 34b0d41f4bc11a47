#include "sim/serving/collective_pricer.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "sim/core/error.hpp"

namespace agentsim::serving {

CollectivePricer::CollectivePricer(const hw::System& system, const wl::ParallelPlan& plan,
                                   CollectiveFidelity fidelity, const KernelEfficiency* measured)
    : placement_(place_plan(plan)), fidelity_(fidelity) {
  if (const std::string why = plan_layout_problem(plan, system); !why.empty()) {
    throw core::Error("plan " + plan.to_string() + " on " + system.name + ": " + why);
  }
  // The replica's systems joined by their scale-out fabric (one system: no switches).
  hw::ClusterHardware hw_systems;
  hw_systems.name = system.name;
  hw_systems.system = system;
  hw_systems.systems = plan.nodes(system.accelerators);
  const hw::Topology topo = hw::build_topology(hw_systems);
  const bool tp_spans = spans_systems(placement_.tp_group, system.accelerators);
  groups_ = {describe(topo, "tp", "all-reduce", placement_.tp_group),
             describe(topo, "ep", plan.expert_all_to_all ? "all-to-all" : "all-gather + reduce-scatter",
                      placement_.ep_group),
             describe(topo, "pp", "send/recv",
                      placement_.pp_chain.size() > 1
                          ? std::vector<int>{placement_.pp_chain[0], placement_.pp_chain[1]}
                          : std::vector<int>{})};
  std::unique_ptr<hw::CollectiveModel> model;
  if (fidelity == CollectiveFidelity::kFlow) model = std::make_unique<hw::FlowCollectiveModel>(topo);
  else model = std::make_unique<hw::AnalyticalCollectiveModel>(topo);
  for (int i = 0; i < kSizes; ++i) {
    const double bytes = std::ldexp(1.0, i);
    const auto idx = static_cast<std::size_t>(i);
    if (placement_.tp_group.size() > 1) {
      const int group = static_cast<int>(placement_.tp_group.size());
      // A measured table is of one system's scale-up fabric: not for a group that crosses NICs.
      const MeasuredCollective m =
          measured != nullptr && !tp_spans ? measured->all_reduce(bytes, group) : MeasuredCollective{};
      if (m.time_s >= 0) {
        all_reduce_[idx] = hw::CollectiveCost{"measured", 0, m.time_s, 1, true};
        // Each table behind some size, smallest sizes first (e.g. the engines' own kernel, then NCCL's).
        const std::string part = (all_reduce_source_.empty() ? "measured, " : "; ") + m.source;
        if (all_reduce_source_.find(m.source) == std::string::npos) all_reduce_source_ += part;
      } else {
        all_reduce_[idx] = model->collective(hw::CollectiveKind::kAllReduce, placement_.tp_group, bytes);
      }
      has_all_reduce_ = true;
    }
    if (placement_.ep_group.size() > 1 && plan.expert_all_to_all) {
      all_to_all_[idx] = model->collective(hw::CollectiveKind::kAllToAll, placement_.ep_group, bytes);
      has_all_to_all_ = true;
    }
    if (placement_.ep_group.size() > 1 && !plan.expert_all_to_all) {
      all_gather_[idx] = model->collective(hw::CollectiveKind::kAllGather, placement_.ep_group, bytes);
      reduce_scatter_[idx] = model->collective(hw::CollectiveKind::kReduceScatter, placement_.ep_group, bytes);
      has_gather_scatter_ = true;
    }
    if (placement_.pp_chain.size() > 1) {
      send_recv_[idx] = model->point_to_point(placement_.pp_chain[0], placement_.pp_chain[1], bytes);
      has_send_recv_ = true;
    }
  }
}

CollectiveGroup CollectivePricer::describe(const hw::Topology& topo, std::string name, std::string collective,
                                           const std::vector<int>& members) {
  CollectiveGroup g;
  g.name = std::move(name);
  g.collective = std::move(collective);
  g.members = static_cast<int>(members.size());
  if (members.size() < 2) return g;
  std::vector<int> systems;
  systems.reserve(members.size());
  for (const int m : members) systems.push_back(topo.system_of_gpu(m));
  std::sort(systems.begin(), systems.end());
  g.systems = static_cast<int>(std::unique(systems.begin(), systems.end()) - systems.begin());
  // The links of member 0's routes to the others: its scale-up link, and its NIC when a peer is off-system.
  g.scale_up_bw_Bps = std::numeric_limits<double>::infinity();
  g.scale_out_bw_Bps = std::numeric_limits<double>::infinity();
  for (std::size_t i = 1; i < members.size(); ++i) {
    const hw::Route r = topo.gpu_route(members[0], members[i]);
    const bool off = topo.system_of_gpu(members[i]) != topo.system_of_gpu(members[0]);
    if (off) {
      ++g.off_system_peers;
      g.scale_out_bw_Bps = std::min(g.scale_out_bw_Bps, r.bottleneck_Bps);
      g.scale_out_latency_s = std::max(g.scale_out_latency_s, r.latency_s);
    } else {
      g.scale_up_bw_Bps = std::min(g.scale_up_bw_Bps, r.bottleneck_Bps);
      g.scale_up_latency_s = std::max(g.scale_up_latency_s, r.latency_s);
    }
  }
  if (g.off_system_peers == 0) g.scale_out_bw_Bps = 0;
  if (g.off_system_peers + 1 == g.members) g.scale_up_bw_Bps = 0;
  return g;
}

std::string CollectiveGroup::links() const {
  if (members < 2) return "none";
  char buf[160];
  std::string s;
  if (scale_up_bw_Bps > 0) {
    std::snprintf(buf, sizeof buf, "scale-up %.0f GB/s, %.2f us", scale_up_bw_Bps / 1e9, scale_up_latency_s * 1e6);
    s = buf;
  }
  if (off_system_peers > 0) {
    std::snprintf(buf, sizeof buf, "%sNIC %.0f GB/s, %.2f us (%d of %d peers off-system)", s.empty() ? "" : " + ",
                  scale_out_bw_Bps / 1e9, scale_out_latency_s * 1e6, off_system_peers, members - 1);
    s += buf;
  }
  return s;
}

std::string_view CollectivePricer::fidelity() const {
  return fidelity_ == CollectiveFidelity::kFlow ? "flow" : "analytical";
}

hw::CollectiveCost CollectivePricer::interpolate(const Table& t, double bytes) {
  if (bytes <= 1.0) {
    hw::CollectiveCost c = t[0];
    c.transfer_s *= std::max(0.0, bytes);
    return c;
  }
  const double e = std::log2(bytes);
  int lo = static_cast<int>(std::floor(e));
  if (lo >= kSizes - 1) lo = kSizes - 2;
  const hw::CollectiveCost& a = t[static_cast<std::size_t>(lo)];
  const hw::CollectiveCost& b = t[static_cast<std::size_t>(lo) + 1];
  const double x0 = std::ldexp(1.0, lo), x1 = std::ldexp(1.0, lo + 1);
  const double f = (bytes - x0) / (x1 - x0);  // beyond the table: linear extrapolation of the last segment
  hw::CollectiveCost c = f < 0.5 ? a : b;
  c.latency_s = a.latency_s + f * (b.latency_s - a.latency_s);
  c.transfer_s = a.transfer_s + f * (b.transfer_s - a.transfer_s);
  return c;
}

hw::CollectiveCost CollectivePricer::price(wl::CollectiveOp kind, double bytes) const {
  switch (kind) {
    case wl::CollectiveOp::kAllReduce:
      return has_all_reduce_ ? interpolate(all_reduce_, bytes) : hw::CollectiveCost{"none", 0, 0, 0};
    case wl::CollectiveOp::kDispatch:
    case wl::CollectiveOp::kCombine:  // the payload is the send buffer
      return has_all_to_all_ ? interpolate(all_to_all_, bytes) : hw::CollectiveCost{"none", 0, 0, 0};
    case wl::CollectiveOp::kSendRecv:
      return has_send_recv_ ? interpolate(send_recv_, bytes) : hw::CollectiveCost{"none", 0, 0, 0};
    case wl::CollectiveOp::kAllGather:  // the payload is the gathered (output) buffer
      return has_gather_scatter_ ? interpolate(all_gather_, bytes) : hw::CollectiveCost{"none", 0, 0, 0};
    case wl::CollectiveOp::kReduceScatter:  // the payload is the input buffer
      return has_gather_scatter_ ? interpolate(reduce_scatter_, bytes) : hw::CollectiveCost{"none", 0, 0, 0};
  }
  return {"none", 0, 0, 0};
}

}  // namespace agentsim::serving
