// One suite, both fidelities: where no link is shared unevenly the analytical
// and max-min fair models must agree with the same hand-derived values.
#include "hwmodels/collective_model.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <numeric>

#include "tests/hwmodels/hw_fixtures.hpp"
#include "hwmodels/collective.hpp"

namespace agentsim::hw {
namespace {


std::vector<int> first(int n) {
  std::vector<int> g(static_cast<std::size_t>(n));
  std::iota(g.begin(), g.end(), 0);
  return g;
}

struct Topologies {
  Topology hgx = build_topology(test::hw_fixtures().systems.get("hgx-h200"));
  Topology nvl72 = build_topology(test::hw_fixtures().systems.get("gb300-nvl72"));
  Topology two_hgx = build_topology(ClusterHardware{"2xhgx-h200", test::hw_fixtures().systems.get("hgx-h200"), 2, ScaleOutFabric{}});
};
const Topologies& topologies() {
  static const Topologies t;
  return t;
}

enum class Fidelity { kAnalytical, kFlow };

std::unique_ptr<CollectiveModel> make(Fidelity f, const Topology& t) {
  if (f == Fidelity::kAnalytical) return std::make_unique<AnalyticalCollectiveModel>(t);
  return std::make_unique<FlowCollectiveModel>(t);
}

class CollectiveSuite : public ::testing::TestWithParam<Fidelity> {};

// 8 x H200 on NVSwitch: alpha = 1.5 us per ring step (GPU->switch->GPU),
// beta from 450 GB/s; ring = 14 x 1.5 us + 14 x (bytes / 8) / 450 GB/s.
TEST_P(CollectiveSuite, RingAllReduceOnEightH200s) {
  const auto m = make(GetParam(), topologies().hgx);
  for (const double bytes : {1048576.0, 16777216.0, 268435456.0}) {
    const CollectiveCost c = m->run(ring_all_reduce_schedule(first(8), bytes));
    EXPECT_NEAR(c.latency_s, 14 * 1.5e-6, 1e-15) << bytes;
    EXPECT_NEAR(c.transfer_s, 14 * (bytes / 8) / 450e9, 1e-12 * c.transfer_s) << bytes;
    EXPECT_EQ(c.steps, 14);
  }
  // 16 MiB by hand: 21 us + 14 x 2,097,152 B / 450e9 B/s = 21 us + 65.24472889 us.
  EXPECT_NEAR(m->run(ring_all_reduce_schedule(first(8), 16777216.0)).total_s(), 86.24472889e-6, 1e-14);
  // It matches the closed-form ring formula the step cost model uses.
  EXPECT_NEAR(m->run(ring_all_reduce_schedule(first(8), 16777216.0)).total_s(),
              ring_all_reduce(16777216.0, 8, 450e9, 1.5e-6).total_s(), 1e-15);
}

// Binary tree over 8 (depth 3): up 7->3 (1 x bytes), {3,4}->1 and {5,6}->2
// (two children share the parent's link: 2 x bytes), {1,2}->0 (2 x bytes);
// down mirrors it: 6 steps of 1.5 us + 10 x bytes / 450 GB/s. Small buffers
// take the tree (6 alpha vs 14), large ones the ring.
TEST_P(CollectiveSuite, AllReduceChoosesTreeForSmallRingForLarge) {
  const auto m = make(GetParam(), topologies().hgx);
  const CollectiveCost small = m->collective(CollectiveKind::kAllReduce, first(8), 16384);
  EXPECT_EQ(small.algorithm, "tree");
  EXPECT_NEAR(small.total_s(), 6 * 1.5e-6 + 10 * 16384 / 450e9, 1e-15);
  const CollectiveCost large = m->collective(CollectiveKind::kAllReduce, first(8), 16777216.0);
  EXPECT_EQ(large.algorithm, "ring");
  EXPECT_NEAR(large.total_s(), 86.24472889e-6, 1e-14);
}

// Reduce-scatter and all-gather: 7 ring steps of bytes / 8.
TEST_P(CollectiveSuite, ReduceScatterAndAllGatherAreHalfARing) {
  const auto m = make(GetParam(), topologies().hgx);
  const double bytes = 8e6;
  const double expect = 7 * 1.5e-6 + 7 * 1e6 / 450e9;
  EXPECT_NEAR(m->collective(CollectiveKind::kReduceScatter, first(8), bytes).total_s(), expect, 1e-15);
  EXPECT_NEAR(m->collective(CollectiveKind::kAllGather, first(8), bytes).total_s(), expect, 1e-15);
}

// All-to-all of 16 MB per GPU. NVL72: each GPU sends 71/72 of it through its
// own 900 GB/s NVLink port, 2 us: 2 us + 15.78 MB / 900 GB/s = 19.53 us.
// Two HGX H200 nodes: each GPU sends 8/16 of it over its 400 Gb/s NIC (7/16
// over NVLink in parallel); the slowest route crosses a spine (5.5 us):
// 5.5 us + 8 MB / 50 GB/s = 165.5 us, 8.5x the rack.
TEST_P(CollectiveSuite, AllToAllOnNvl72VersusTwoHgxNodes) {
  const double bytes = 16e6;
  const auto rack = make(GetParam(), topologies().nvl72);
  const CollectiveCost r = rack->collective(CollectiveKind::kAllToAll, first(72), bytes);
  EXPECT_EQ(r.algorithm, "direct");
  EXPECT_NEAR(r.total_s(), 2e-6 + bytes * 71 / 72 / 900e9, 1e-12);
  const auto pair = make(GetParam(), topologies().two_hgx);
  const CollectiveCost p = pair->collective(CollectiveKind::kAllToAll, first(16), bytes);
  EXPECT_NEAR(p.latency_s, 5.5e-6, 1e-15);
  EXPECT_NEAR(p.transfer_s, 8e6 / 50e9, 1e-12);
  EXPECT_GT(p.total_s() / r.total_s(), 8.0);
}

// All-reduce of 256 MiB over 16 GPUs in two HGX nodes: hierarchical wins.
// Intra reduce-scatter 7 x (1.5 us + B/8 / 450 GB/s), inter ring of 2 per rail
// 2 x (5 us + B/16 / 50 GB/s) (same rail, one leaf), intra all-gather as the first.
TEST_P(CollectiveSuite, HierarchicalAllReduceAcrossTwoNodes) {
  const auto m = make(GetParam(), topologies().two_hgx);
  const double b = 268435456.0;
  const CollectiveCost c = m->collective(CollectiveKind::kAllReduce, first(16), b);
  EXPECT_EQ(c.algorithm, "hierarchical");
  const double expect = 14 * (1.5e-6 + b / 8 / 450e9) + 2 * (5e-6 + b / 16 / 50e9);
  EXPECT_NEAR(c.total_s(), expect, 1e-9);
  // Flat ring: 30 steps, each bounded by a network hop of B/16 at 50 GB/s.
  EXPECT_GT(m->run(ring_all_reduce_schedule(first(16), b)).total_s(), 30 * b / 16 / 50e9);
}

// Reduce-scatter and all-gather of a small buffer over the same 16 GPUs: the two-level schedule's
// 7 intra steps (1.5 us) and one inter step (5 us, same rail) against a flat ring's 15 steps, each
// waiting for a NIC hop; for the all-gather the inter step runs first.
TEST_P(CollectiveSuite, HierarchicalReduceScatterAndAllGatherAcrossTwoNodes) {
  const auto m = make(GetParam(), topologies().two_hgx);
  const double b = 16 * 7168 * 2.0;  // 16 tokens of hidden 7168 in BF16
  for (const CollectiveKind kind : {CollectiveKind::kReduceScatter, CollectiveKind::kAllGather}) {
    const CollectiveCost c = m->collective(kind, first(16), b);
    EXPECT_EQ(c.algorithm, "hierarchical") << to_string(kind);
    EXPECT_NEAR(c.total_s(), 7 * (1.5e-6 + b / 8 / 450e9) + (5e-6 + b / 16 / 50e9), 1e-12) << to_string(kind);
    EXPECT_LT(c.total_s(), m->run(reduce_scatter_schedule(first(16), b)).total_s() / 3);
  }
  const Schedule ag = hierarchical_all_gather_schedule({{0, 1, 2, 3, 4, 5, 6, 7}, {8, 9, 10, 11, 12, 13, 14, 15}}, b);
  ASSERT_EQ(ag.phases.size(), 2U);
  EXPECT_EQ(ag.phases[0].transfers.front().dst, 8);  // across the systems first
  EXPECT_EQ(ag.phases[1].repeat, 7);
}

TEST_P(CollectiveSuite, PointToPointIsLatencyPlusBytesOverBottleneck) {
  const auto m = make(GetParam(), topologies().two_hgx);
  EXPECT_NEAR(m->point_to_point(0, 8, 1e9).total_s(), 5e-6 + 1e9 / 50e9, 1e-12);
  EXPECT_NEAR(m->point_to_point(0, 1, 1e9).total_s(), 1.5e-6 + 1e9 / 450e9, 1e-12);
  EXPECT_EQ(m->point_to_point(3, 3, 1e9).total_s(), 0.0);
}

TEST_P(CollectiveSuite, SingleMemberOrEmptyCostsNothing) {
  const auto m = make(GetParam(), topologies().hgx);
  EXPECT_EQ(m->collective(CollectiveKind::kAllReduce, {2}, 1e6).total_s(), 0.0);
  EXPECT_EQ(m->collective(CollectiveKind::kAllToAll, first(8), 0).total_s(), 0.0);
  EXPECT_THROW(m->collective(CollectiveKind::kAllReduce, {0, 9}, 1e6), core::Error);
}

INSTANTIATE_TEST_SUITE_P(Fidelities, CollectiveSuite,
                         ::testing::Values(Fidelity::kAnalytical, Fidelity::kFlow),
                         [](const ::testing::TestParamInfo<Fidelity>& p) {
                           return std::string(p.param == Fidelity::kAnalytical ? "Analytical" : "Flow");
                         });

// Where the fidelities differ: two transfers into s1/gpu0 share its NIC link
// (50 GB/s). s0/gpu0 sends 100 MB on rail 0 (5 us), s0/gpu1 50 MB via a
// spine (5.5 us). Max-min: 25 GB/s each until the 50 MB one ends at 2 ms;
// the other then has 50 MB left at 50 GB/s: 3 ms. Analytical: both drain
// the shared link's 150 MB: 3 ms.
TEST(CollectiveFidelities, ConcurrentTransfersShareALink) {
  const std::vector<Transfer> t{{0, 8, 100e6}, {1, 8, 50e6}};
  const auto flow = FlowCollectiveModel(topologies().two_hgx).concurrent(t);
  EXPECT_NEAR(flow[0], 3e-3 + 5e-6, 1e-12);
  EXPECT_NEAR(flow[1], 2e-3 + 5.5e-6, 1e-12);
  const auto ana = AnalyticalCollectiveModel(topologies().two_hgx).concurrent(t);
  EXPECT_NEAR(ana[0], 3e-3 + 5e-6, 1e-12);
  EXPECT_NEAR(ana[1], 3e-3 + 5.5e-6, 1e-12);
}

}  // namespace
}  // namespace agentsim::hw
