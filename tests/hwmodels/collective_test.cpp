#include "hwmodels/collective.hpp"

#include <gtest/gtest.h>

namespace agentsim::hw {
namespace {

TEST(RingAllReduce, HandComputedEightGpus) {
  // 8 GPUs, 450 GB/s per direction, 2 us per hop, 16 MiB buffer:
  // 2*(8-1) = 14 steps, each moving 16 MiB / 8 = 2 MiB.
  const double bytes = 16.0 * 1024 * 1024;
  const CollectiveTime t = ring_all_reduce(bytes, 8, 450e9, 2e-6);
  EXPECT_DOUBLE_EQ(t.latency_s, 14 * 2e-6);
  EXPECT_DOUBLE_EQ(t.transfer_s, 14 * (bytes / 8) / 450e9);
  EXPECT_DOUBLE_EQ(t.total_s(), t.latency_s + t.transfer_s);
}

TEST(RingAllReduce, SingleMemberOrEmptyCostsNothing) {
  EXPECT_EQ(ring_all_reduce(1e6, 1, 450e9, 2e-6).total_s(), 0.0);
  EXPECT_EQ(ring_all_reduce(0, 8, 450e9, 2e-6).total_s(), 0.0);
}

TEST(RingAllReduce, SmallMessagesAreLatencyBound) {
  const CollectiveTime t = ring_all_reduce(16 * 1024, 8, 450e9, 2e-6);
  EXPECT_GT(t.latency_s, 100 * t.transfer_s);
}

}  // namespace
}  // namespace agentsim::hw
