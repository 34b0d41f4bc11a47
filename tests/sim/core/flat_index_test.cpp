#include "sim/core/flat_index.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace agentsim::core {
namespace {

TEST(FlatIndex, GivesDenseIndicesInInsertionOrderAndFindsThemAgain) {
  FlatIndex idx;
  EXPECT_EQ(idx.find(42), FlatIndex::kAbsent);
  EXPECT_EQ(idx.find_or_add(42), 0U);
  EXPECT_EQ(idx.find_or_add(7), 1U);
  EXPECT_EQ(idx.find_or_add(42), 0U) << "an existing key keeps its index";
  EXPECT_EQ(idx.find(7), 1U);
  EXPECT_EQ(idx.size(), 2U);
  // Key 0 and the largest key are ordinary keys (no value is reserved as "empty").
  EXPECT_EQ(idx.find_or_add(0), 2U);
  EXPECT_EQ(idx.find_or_add(~std::uint64_t{0}), 3U);
  EXPECT_EQ(idx.find(0), 2U);
  EXPECT_EQ(idx.find(~std::uint64_t{0}), 3U);
}

TEST(FlatIndex, SurvivesGrowthWithSequentialAndSpreadKeys) {
  // 16 slots to start, at most half full: 100,000 keys force many doublings; sequential
  // keys (agent ids) and multiples of a large power of two (same low bits) both spread.
  FlatIndex idx;
  std::vector<std::uint64_t> keys;
  for (std::uint64_t i = 0; i < 50000; ++i) keys.push_back(i);
  for (std::uint64_t i = 1; i <= 50000; ++i) keys.push_back(i << 40);
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(idx.find_or_add(keys[i]), i);
  EXPECT_EQ(idx.size(), keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) ASSERT_EQ(idx.find(keys[i]), i) << keys[i];
  EXPECT_EQ(idx.find(50000), FlatIndex::kAbsent);
  EXPECT_EQ(idx.find(std::uint64_t{50001} << 40), FlatIndex::kAbsent);
}

}  // namespace
}  // namespace agentsim::core
