#include "hwmodels/topology.hpp"

#include <gtest/gtest.h>

#include "tests/hwmodels/hw_fixtures.hpp"

namespace agentsim::hw {
namespace {

const System& sys(const std::string& name) { return test::hw_fixtures().systems.get(name); }

TEST(HgxTopology, GpuToGpuCrossesTheNvSwitchOnce) {
  const Topology t = build_topology(sys("hgx-h200"));
  EXPECT_EQ(t.gpu_count(), 8);
  EXPECT_EQ(t.nodes(NodeKind::kNvSwitch).size(), 1u);
  EXPECT_EQ(t.graph()[t.nodes(NodeKind::kNvSwitch)[0]].index, 4) << "4 NVSwitch3 chips";
  // GPU -> NVSwitch -> GPU; each edge 450 GB/s and half the 1.5 us hop.
  const Route r = t.gpu_route(0, 5);
  EXPECT_EQ(r.hops, 2);
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 450e9);
  EXPECT_DOUBLE_EQ(r.latency_s, 1.5e-6);
  EXPECT_EQ(t.graph()[r.path[1]].kind, NodeKind::kNvSwitch);
}

TEST(HgxTopology, HostLinkOwnOrSharedByTwoGpus) {
  // H200: one PCIe Gen5 x16 per GPU, straight to a CPU: 1 hop, 64 GB/s, 2 us.
  const Topology h200 = build_topology(sys("hgx-h200"));
  const Route r = h200.route(h200.gpu(0), h200.nodes(NodeKind::kCpu)[0]);
  EXPECT_EQ(r.hops, 1);
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 64e9);
  EXPECT_DOUBLE_EQ(r.latency_s, 2e-6);
  // A100: two GPUs behind one PCIe Gen4 switch uplink: GPU -> port -> CPU, 32 GB/s.
  const Topology a100 = build_topology(sys("hgx-a100"));
  EXPECT_EQ(a100.nodes(NodeKind::kHostPort).size(), 4u);
  const Route s = a100.route(a100.gpu(1), a100.nodes(NodeKind::kCpu)[0]);
  EXPECT_EQ(s.hops, 2);
  EXPECT_DOUBLE_EQ(s.bottleneck_Bps, 32e9);
}

TEST(Nvl72Topology, SeventyTwoGpusOneNvlinkDomainAndGraceHosts) {
  const Topology t = build_topology(sys("gb300-nvl72"));
  EXPECT_EQ(t.gpu_count(), 72);
  EXPECT_EQ(t.nodes(NodeKind::kCpu).size(), 36u);
  EXPECT_EQ(t.nodes(NodeKind::kNic).size(), 72u);
  EXPECT_EQ(t.graph()[t.nodes(NodeKind::kNvSwitch)[0]].index, 18) << "18 NVLink switch chips";
  // Any two GPUs: one NVLink switch crossing, 900 GB/s, 2 x 1 us.
  const Route r = t.gpu_route(0, 71);
  EXPECT_EQ(r.hops, 2);
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 900e9);
  EXPECT_DOUBLE_EQ(r.latency_s, 2e-6);
  // GPU 0 and 1 share Grace 0's NVLink-C2C port (450 GB/s per direction, 1 us).
  const Vertex grace0 = t.nodes(NodeKind::kCpu)[0];
  const Route c0 = t.route(t.gpu(0), grace0);
  const Route c1 = t.route(t.gpu(1), grace0);
  EXPECT_EQ(c0.hops, 2);
  EXPECT_DOUBLE_EQ(c0.bottleneck_Bps, 450e9);
  EXPECT_DOUBLE_EQ(c0.latency_s, 1e-6);
  EXPECT_EQ(c0.path[1], c1.path[1]) << "same host port";
}

TEST(AmdMeshTopology, DirectLinkPerPairWithASeventhOfTheAggregate) {
  const Topology t = build_topology(sys("mi300x-8"));
  EXPECT_TRUE(t.nodes(NodeKind::kNvSwitch).empty());
  // 448 GB/s over 7 peers = 64 GB/s per pair per direction, one 2 us hop.
  const Route r = t.gpu_route(0, 3);
  EXPECT_EQ(r.hops, 1);
  EXPECT_DOUBLE_EQ(r.bottleneck_Bps, 64e9);
  EXPECT_DOUBLE_EQ(r.latency_s, 2e-6);
}

TEST(ScaleOutTopology, RailOptimizedSameRailOneLeafOtherRailViaSpine) {
  ClusterHardware c{"2xhgx-h200", sys("hgx-h200"), 2, ScaleOutFabric{}};
  const Topology t = build_topology(c);
  EXPECT_EQ(t.gpu_count(), 16);
  EXPECT_EQ(t.nodes(NodeKind::kLeafSwitch).size(), 8u) << "one leaf per rail";
  EXPECT_EQ(t.nodes(NodeKind::kSpineSwitch).size(), 32u) << "leaf_radix 64 / 2";
  // s0/gpu0 -> nic0 -> leaf0 -> nic0 -> s1/gpu0: 4 hops, 400 Gb/s = 50 GB/s,
  // the catalog's 5 us one-way latency.
  const Route same = t.gpu_route(0, 8);
  EXPECT_EQ(same.hops, 4);
  EXPECT_DOUBLE_EQ(same.bottleneck_Bps, 50e9);
  EXPECT_NEAR(same.latency_s, 5e-6, 1e-15);
  // s0/gpu0 -> s1/gpu1 changes rail: leaf0 -> spine -> leaf1, 6 hops, +0.5 us.
  const Route cross = t.gpu_route(0, 9);
  EXPECT_EQ(cross.hops, 6);
  EXPECT_NEAR(cross.latency_s, 5.5e-6, 1e-15);
  EXPECT_EQ(t.graph()[cross.path[3]].kind, NodeKind::kSpineSwitch);
  // Inside a system the NVSwitch path stays shortest.
  EXPECT_EQ(t.gpu_route(8, 15).hops, 2);
}

TEST(ScaleOutTopology, FatTreeFillsLeavesInSystemOrder) {
  // Radix 8: 4 NICs per leaf, so each 8-NIC system fills two leaves.
  ClusterHardware c{"2xhgx-h200", sys("hgx-h200"), 2, ScaleOutFabric{FabricKind::kFatTree, 8, 0.5e-6}};
  const Topology t = build_topology(c);
  EXPECT_EQ(t.nodes(NodeKind::kLeafSwitch).size(), 4u);
  EXPECT_EQ(t.nodes(NodeKind::kSpineSwitch).size(), 4u);
  // s0/nic0 and s1/nic0 sit on leaf0 and leaf2: through a spine.
  EXPECT_EQ(t.gpu_route(0, 8).hops, 6);
  // A big radix puts all 16 NICs on one leaf: 4 hops for any pair.
  ClusterHardware big{"2xhgx-h200", sys("hgx-h200"), 2, ScaleOutFabric{FabricKind::kFatTree, 64, 0.5e-6}};
  const Topology tb = build_topology(big);
  EXPECT_EQ(tb.nodes(NodeKind::kLeafSwitch).size(), 1u);
  EXPECT_EQ(tb.gpu_route(0, 9).hops, 4);
}

TEST(Topology, RouteIsDeterministicAndChecksRange) {
  ClusterHardware c{"4xhgx-h200", sys("hgx-h200"), 4, ScaleOutFabric{}};
  const Topology t = build_topology(c);
  const Route a = t.gpu_route(3, 29);
  const Route b = t.gpu_route(3, 29);
  EXPECT_EQ(a.path, b.path);
  EXPECT_THROW(t.gpu(32), core::Error);
  EXPECT_EQ(t.gpu_route(4, 4).hops, 0);
}

}  // namespace
}  // namespace agentsim::hw
