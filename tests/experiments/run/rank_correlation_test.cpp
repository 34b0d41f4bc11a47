// Spearman's rank correlation, the figure the search logs between its bound and the simulation.
#include <gtest/gtest.h>

#include <cmath>

#include "experiments/run/rank_correlation.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace {

TEST(RankCorrelation, TiesShareTheirMeanRank) {
  EXPECT_EQ(descending_ranks({5, 6, 7, 8, 7}), (std::vector<double>{5, 4, 2.5, 1, 2.5}));
}

TEST(RankCorrelation, SpearmanMatchesTheHandComputedValue) {
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {10, 20, 30, 40}), 1.0);
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {4, 3, 2, 1}), -1.0);
  // Monotone transforms do not change ranks.
  EXPECT_DOUBLE_EQ(spearman({1, 2, 3, 4}, {1, 8, 27, 1000}), 1.0);
  // By hand: ranks (5,4,3,2,1) and (5,4,2.5,1,2.5), deviations from 3: sum of products 8,
  // squares 10 and 9.5: 8 / sqrt(95).
  EXPECT_NEAR(spearman({1, 2, 3, 4, 5}, {5, 6, 7, 8, 7}), 8 / std::sqrt(95.0), 1e-15);
  // One swapped pair of four: 1 - 6 x 2 / (4 x 15) = 0.8.
  EXPECT_NEAR(spearman({4, 3, 2, 1}, {4, 3, 1, 2}), 0.8, 1e-15);
}

TEST(RankCorrelation, UndefinedForTooFewOrConstantSamples) {
  EXPECT_TRUE(std::isnan(spearman({1}, {2})));
  EXPECT_TRUE(std::isnan(spearman({1, 2, 3}, {7, 7, 7})));
  EXPECT_THROW(spearman({1, 2}, {1}), core::Error);
}

}  // namespace
}  // namespace agentsim::exp
