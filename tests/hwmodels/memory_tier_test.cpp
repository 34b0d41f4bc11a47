#include "hwmodels/memory_tier.hpp"

#include <gtest/gtest.h>

#include "tests/hwmodels/hw_fixtures.hpp"
#include "hwmodels/roofline.hpp"

namespace agentsim::hw {
namespace {


TEST(MemoryTiers, FastestFirstWithTheirLinks) {
  const auto t = memory_tiers(test::hw_fixtures().systems.get("hgx-h200"));
  ASSERT_EQ(t.size(), 4u);
  EXPECT_EQ(t[0].kind, TierKind::kHbm);
  EXPECT_DOUBLE_EQ(t[0].capacity_bytes, 141e9);
  EXPECT_EQ(t[1].kind, TierKind::kHostDram);
  EXPECT_EQ(t[1].link, "pcie5");
  EXPECT_DOUBLE_EQ(t[1].capacity_bytes, 2e12);
  EXPECT_EQ(t[2].kind, TierKind::kLocalSsd);
  EXPECT_DOUBLE_EQ(t[2].latency_s, 2e-6 + kNvmeReadLatency_s);
  EXPECT_EQ(t[3].kind, TierKind::kRemotePool);
  EXPECT_EQ(t[3].link, "nic");
}

TEST(MemoryTiers, GpusSharingAHostLinkShareItsBandwidth) {
  // A100: 2 GPUs per PCIe Gen4 uplink (32 GB/s), 4 uplinks, DRAM 409.6 GB/s.
  const auto dram = memory_tiers(test::hw_fixtures().systems.get("hgx-a100"))[1];
  EXPECT_DOUBLE_EQ(per_gpu_bw_Bps(dram, 1), 32e9);
  EXPECT_DOUBLE_EQ(per_gpu_bw_Bps(dram, 4), 32e9) << "one GPU per uplink";
  EXPECT_DOUBLE_EQ(per_gpu_bw_Bps(dram, 8), 16e9) << "two GPUs per uplink";
  // GB300 NVL72: 72 GPUs on 36 C2C ports (450 GB/s, 225 each) but all share
  // 14 TB/s of LPDDR5X: 14e12 / 72 = 194.4 GB/s each.
  const auto grace = memory_tiers(test::hw_fixtures().systems.get("gb300-nvl72"))[1];
  EXPECT_DOUBLE_EQ(per_gpu_bw_Bps(grace, 2), 450e9);
  EXPECT_DOUBLE_EQ(per_gpu_bw_Bps(grace, 72), 14e12 / 72);
  EXPECT_EQ(per_gpu_bw_Bps(grace, 0), 0.0);
}

TEST(MemoryTiers, AReplicasConsecutiveGpusFillEachHostLink) {
  // GB200 NVL72: GPUs 0 and 1 share Grace 0's 450 GB/s C2C link, so a plan on 2 or 8
  // consecutive GPUs gets 225 GB/s each (spread over the rack it would get 450).
  const auto grace = memory_tiers(test::hw_fixtures().systems.get("gb200-nvl72"))[1];
  EXPECT_DOUBLE_EQ(packed_per_gpu_bw_Bps(grace, 1), 450e9);
  EXPECT_DOUBLE_EQ(packed_per_gpu_bw_Bps(grace, 2), 225e9);
  EXPECT_DOUBLE_EQ(packed_per_gpu_bw_Bps(grace, 8), 225e9);
  EXPECT_DOUBLE_EQ(per_gpu_bw_Bps(grace, 8), 450e9);
  // All 72: the rack's 18.4 TB/s of LPDDR5X / 72 = 255.6 GB/s exceeds 225: the link limits.
  EXPECT_DOUBLE_EQ(packed_per_gpu_bw_Bps(grace, 72), 225e9);
  // HGX B200: one PCIe Gen5 x16 (64 GB/s) per GPU; 563 GB/s of DDR5 / 8 = 70.4 GB/s is not the limit.
  const auto pcie = memory_tiers(test::hw_fixtures().systems.get("hgx-b200"))[1];
  EXPECT_DOUBLE_EQ(packed_per_gpu_bw_Bps(pcie, 8), 64e9);
  EXPECT_EQ(packed_per_gpu_bw_Bps(pcie, 0), 0.0);
}

TEST(OpTime, LaunchFloorBoundsSmallKernels) {
  // H200: 989 TFLOP/s BF16, 4.8 TB/s, 4 us floor. A 1 MB read at 50%
  // bandwidth efficiency: 1e6 / 2.4e12 = 0.417 us < 4 us floor.
  const Accelerator& a = test::hw_fixtures().accelerators.get("h200");
  const double peak = a.peak_flops_for(DType::kBf16);
  const OpTime small = op_time(0, peak, 0.8, 1e6, a.hbm_bw_Bps, 0.5, a.launch_floor_s);
  EXPECT_DOUBLE_EQ(small.memory_s, 1e6 / 2.4e12);
  EXPECT_EQ(small.compute_s, 0.0) << "no FLOPs, no compute time";
  EXPECT_DOUBLE_EQ(small.time_s(), 4e-6);
  // 1 PFLOP at 80%: 1e15 / (989e12 x 0.8) = 1.2639 s, compute-bound.
  const OpTime big = op_time(1e15, peak, 0.8, 1e9, a.hbm_bw_Bps, 0.5, a.launch_floor_s);
  EXPECT_TRUE(big.compute_bound());
  EXPECT_DOUBLE_EQ(big.time_s(), 1e15 / (989e12 * 0.8));
  // The busiest rank's load scales compute and memory, not the floor.
  const OpTime loaded = op_time(1e15, peak, 0.8, 1e9, a.hbm_bw_Bps, 0.5, a.launch_floor_s, 1.5);
  EXPECT_DOUBLE_EQ(loaded.compute_s, big.compute_s * 1.5);
  EXPECT_DOUBLE_EQ(loaded.memory_s, big.memory_s * 1.5);
  EXPECT_EQ(loaded.floor_s, big.floor_s);
}

}  // namespace
}  // namespace agentsim::hw
