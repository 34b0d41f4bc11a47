#include "sim/metrics/readoff.hpp"

#include <gtest/gtest.h>

#include <cmath>

namespace agentsim::metrics {
namespace {

// A hand-made sweep: speed falls and throughput per MW rises with concurrency.
std::vector<CurvePoint> curve() {
  return {{1, 150, 1000}, {8, 120, 6000}, {16, 90, 9000}, {32, 40, 12000}};
}

TEST(Readoff, InterpolatesBetweenTheBracketingPoints) {
  // 100 tok/s lies between c=8 (120) and c=16 (90): f = (100-120)/(90-120) = 2/3,
  // value = 6000 + 2/3 x 3000 = 8000, concurrency = 8 + 2/3 x 8 = 13.33.
  const Readoff r = read_off_at_speed(curve(), 100);
  ASSERT_TRUE(r.in_swept_range);
  EXPECT_DOUBLE_EQ(r.value, 8000);
  EXPECT_NEAR(r.concurrency, 13.333333333, 1e-8);
  EXPECT_EQ(r.note, "between concurrency 8 and 16");
}

TEST(Readoff, ExactPointAndOrderIndependence) {
  auto c = curve();
  std::swap(c[0], c[3]);
  const Readoff r = read_off_at_speed(c, 90);
  EXPECT_TRUE(r.in_swept_range);
  EXPECT_DOUBLE_EQ(r.value, 9000);
}

TEST(Readoff, NeverExtrapolates) {
  Readoff r = read_off_at_speed(curve(), 200);
  EXPECT_FALSE(r.in_swept_range);
  EXPECT_TRUE(std::isnan(r.value));
  EXPECT_EQ(r.note, "target 200 tok/s is above the fastest swept point (150 tok/s)");
  r = read_off_at_speed(curve(), 20);
  EXPECT_FALSE(r.in_swept_range);
  EXPECT_EQ(r.note, "target 20 tok/s is below the slowest swept point (40 tok/s); sweep higher concurrency");
}

TEST(Readoff, NonMonotoneCurveTakesTheHighestConcurrencyBracket) {
  // Speed dips below 100 at c=8, recovers at c=16, then falls again at c=32.
  const std::vector<CurvePoint> c = {{1, 150, 1000}, {8, 95, 5000}, {16, 110, 9000}, {32, 50, 12000}};
  const Readoff r = read_off_at_speed(c, 100);
  // Bracket (16, 32): f = (100-110)/(50-110) = 1/6 -> 9000 + 3000/6 = 9500.
  EXPECT_DOUBLE_EQ(r.value, 9500);
}

}  // namespace
}  // namespace agentsim::metrics
