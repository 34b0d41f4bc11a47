#include "sim/serving/collective_pricer.hpp"

#include <cmath>

#include "sim/core/error.hpp"

namespace agentsim::serving {

CollectivePricer::CollectivePricer(const hw::System& system, const wl::ParallelPlan& plan,
                                   CollectiveFidelity fidelity, const KernelEfficiency* measured)
    : placement_(place_plan(plan)), fidelity_(fidelity) {
  if (plan.devices() > system.accelerators) {
    throw core::Error("plan " + plan.to_string() + " needs " + std::to_string(plan.devices()) + " devices; " +
                      system.name + " has " + std::to_string(system.accelerators));
  }
  const hw::Topology topo = hw::build_topology(system);
  std::unique_ptr<hw::CollectiveModel> model;
  if (fidelity == CollectiveFidelity::kFlow) model = std::make_unique<hw::FlowCollectiveModel>(topo);
  else model = std::make_unique<hw::AnalyticalCollectiveModel>(topo);
  for (int i = 0; i < kSizes; ++i) {
    const double bytes = std::ldexp(1.0, i);
    const auto idx = static_cast<std::size_t>(i);
    if (placement_.tp_group.size() > 1) {
      const int group = static_cast<int>(placement_.tp_group.size());
      const MeasuredCollective m = measured != nullptr ? measured->all_reduce(bytes, group) : MeasuredCollective{};
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
    if (placement_.ep_group.size() > 1) {
      all_to_all_[idx] = model->collective(hw::CollectiveKind::kAllToAll, placement_.ep_group, bytes);
      has_all_to_all_ = true;
    }
    if (placement_.pp_chain.size() > 1) {
      send_recv_[idx] = model->point_to_point(placement_.pp_chain[0], placement_.pp_chain[1], bytes);
      has_send_recv_ = true;
    }
  }
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
  }
  return {"none", 0, 0, 0};
}

}  // namespace agentsim::serving
