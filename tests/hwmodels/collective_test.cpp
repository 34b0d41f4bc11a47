#include "hwmodels/collective.hpp"

#include <gtest/gtest.h>

namespace agentsim::hw {
namespace {

// Independent reference: a ring all-reduce is a reduce-scatter then an all-gather, each of
// n - 1 steps in which every member sends one n-th of its buffer to its neighbour, so each
// member puts 2(n-1)/n x bytes on its link (the "busBw = algBw x 2(n-1)/n" factor of
// github.com/NVIDIA/nccl-tests doc/PERFORMANCE.md) and pays 2(n-1) per-hop latencies.
TEST(RingAllReduce, HandComputedEightGpus) {
  // 8 GPUs, 450 GB/s per direction, 2 us per hop, 16 MiB = 16,777,216 B buffer:
  //   latency  = 2 x 7 x 2 us = 28 us
  //   transfer = 2 x 7 / 8 x 16,777,216 B = 29,360,128 B / 450e9 B/s = 65.244728889 us
  //   total    = 93.244728889 us
  const CollectiveTime t = ring_all_reduce(16777216.0, 8, 450e9, 2e-6);
  EXPECT_NEAR(t.latency_s, 28e-6, 1e-18);
  EXPECT_NEAR(t.transfer_s, 65.244728889e-6, 1e-15);
  EXPECT_NEAR(t.total_s(), 93.244728889e-6, 1e-15);
}

TEST(RingAllReduce, HandComputedFourGpusLargeBuffer) {
  // 4 GPUs, 100 GB/s per direction, 5 us per hop, 1 GB buffer:
  //   latency  = 2 x 3 x 5 us = 30 us
  //   transfer = 2 x 3 / 4 x 1e9 B = 1.5e9 B / 100e9 B/s = 15 ms
  //   total    = 15.03 ms
  const CollectiveTime t = ring_all_reduce(1e9, 4, 100e9, 5e-6);
  EXPECT_NEAR(t.latency_s, 30e-6, 1e-18);
  EXPECT_NEAR(t.transfer_s, 15e-3, 1e-15);
  EXPECT_NEAR(t.total_s(), 15.03e-3, 1e-15);
}

TEST(RingAllReduce, SingleMemberOrEmptyCostsNothing) {
  EXPECT_EQ(ring_all_reduce(1e6, 1, 450e9, 2e-6).total_s(), 0.0);
  EXPECT_EQ(ring_all_reduce(0, 8, 450e9, 2e-6).total_s(), 0.0);
}

// A reduce-scatter (or all-gather) is the first (second) half of that ring: 8 GPUs, 16 MiB:
// latency 7 x 2 us = 14 us, transfer 7 / 8 x 16,777,216 B / 450e9 B/s = 32.622364444 us.
TEST(RingReduceScatter, HandComputedEightGpus) {
  const CollectiveTime t = ring_reduce_scatter(16777216.0, 8, 450e9, 2e-6);
  EXPECT_NEAR(t.latency_s, 14e-6, 1e-18);
  EXPECT_NEAR(t.transfer_s, 32.622364444e-6, 1e-15);
  EXPECT_EQ(ring_reduce_scatter(1e6, 1, 450e9, 2e-6).total_s(), 0.0);
}

TEST(RingAllReduce, SmallMessagesAreLatencyBound) {
  const CollectiveTime t = ring_all_reduce(16 * 1024, 8, 450e9, 2e-6);
  EXPECT_GT(t.latency_s, 100 * t.transfer_s);
}

}  // namespace
}  // namespace agentsim::hw
