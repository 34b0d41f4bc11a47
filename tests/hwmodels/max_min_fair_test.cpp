#include "hwmodels/max_min_fair.hpp"

#include <gtest/gtest.h>

namespace agentsim::hw {
namespace {

TEST(MaxMinFair, BottleneckedFlowLeavesTheRestToItsNeighbour) {
  // Link 0: 10 B/s shared by f1 and f2; link 1: 4 B/s, f2 only.
  // f2 is held to 4 by link 1, so f1 gets 10 - 4 = 6: f1 (6 B) ends at 1 s.
  // f2 (8 B) then has 4 B left, still at 4 B/s: ends at 2 s.
  const std::vector<Flow> flows{{{0}, 6.0}, {{0, 1}, 8.0}};
  const auto t = max_min_fair_completion(flows, {10.0, 4.0});
  EXPECT_NEAR(t[0], 1.0, 1e-12);
  EXPECT_NEAR(t[1], 2.0, 1e-12);
}

TEST(MaxMinFair, FinishedFlowsReleaseBandwidth) {
  // Two flows on one 10 B/s link: 5 B/s each; the 10 B flow ends at 2 s, then
  // the 30 B flow has 20 B left at 10 B/s: ends at 4 s.
  const auto t = max_min_fair_completion({{{0}, 10.0}, {{0}, 30.0}}, {10.0});
  EXPECT_NEAR(t[0], 2.0, 1e-12);
  EXPECT_NEAR(t[1], 4.0, 1e-12);
}

TEST(MaxMinFair, EmptyFlowsFinishAtOnce) {
  const auto t = max_min_fair_completion({{{}, 5.0}, {{0}, 0.0}}, {1.0});
  EXPECT_EQ(t[0], 0.0);
  EXPECT_EQ(t[1], 0.0);
}

}  // namespace
}  // namespace agentsim::hw
