#include "sim/core/min_tree.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <vector>

#include "sim/core/rng.hpp"

namespace agentsim::core {
namespace {

// The first minimum of a left-to-right scan: what MinTree must agree with.
std::size_t scan_argmin(const std::vector<long long>& v) {
  std::size_t best = 0;
  for (std::size_t i = 1; i < v.size(); ++i) {
    if (v[i] < v[best]) best = i;
  }
  return best;
}

TEST(MinTree, StartsAtZeroWithTheLowestPosition) {
  MinTree t(5);
  EXPECT_EQ(t.size(), 5U);
  EXPECT_EQ(t.argmin(), 0U);
  t.set(0, 3);
  EXPECT_EQ(t.argmin(), 1U) << "ties go to the lowest position";
  t.set(1, 2);
  t.set(2, 2);
  t.set(3, 2);
  t.set(4, 2);
  EXPECT_EQ(t.argmin(), 1U);
  t.set(4, 1);
  EXPECT_EQ(t.argmin(), 4U);
  t.set(4, 5);
  EXPECT_EQ(t.argmin(), 1U) << "a winner that grows gives way";
  EXPECT_EQ(t.value(4), 5);
}

TEST(MinTree, OneValue) {
  MinTree t(1);
  t.set(0, 7);
  EXPECT_EQ(t.argmin(), 0U);
  t.set(0, -7);
  EXPECT_EQ(t.argmin(), 0U);
}

TEST(MinTree, AgreesWithAScanUnderRandomUpdates) {
  for (std::size_t n : {1U, 2U, 3U, 7U, 8U, 9U, 100U, 1251U}) {
    MinTree t(n);
    std::vector<long long> v(n, 0);
    RngStream rng(n, "min_tree");
    for (int k = 0; k < 20000; ++k) {
      const auto i = static_cast<std::size_t>(rng.uniform_index(n));
      // Small values: many ties, the case where the lowest position must win.
      const auto x = static_cast<long long>(rng.uniform_index(5));
      v[i] = x;
      t.set(i, x);
      ASSERT_EQ(t.argmin(), scan_argmin(v)) << "n " << n << ", update " << k;
    }
  }
}

}  // namespace
}  // namespace agentsim::core
