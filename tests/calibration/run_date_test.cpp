#include "calibration/run_date.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

TEST(RunDate, OnlyRealCalendarDates) {
  EXPECT_TRUE(is_run_date("2026-05-18"));
  EXPECT_TRUE(is_run_date("2024-02-29"));   // leap year
  EXPECT_TRUE(is_run_date("2000-02-29"));   // divisible by 400
  EXPECT_FALSE(is_run_date("1900-02-29") || is_run_date("2100-02-29"));  // divisible by 100 only
  EXPECT_FALSE(is_run_date("2025-02-29"));
  EXPECT_FALSE(is_run_date("2026-04-31"));
  EXPECT_TRUE(is_run_date("2026-12-31"));
  EXPECT_FALSE(is_run_date("2026-00-10"));
  EXPECT_FALSE(is_run_date("2026-13-01"));
  EXPECT_FALSE(is_run_date("2026-01-00"));
  EXPECT_FALSE(is_run_date("1969-12-31"));
  EXPECT_FALSE(is_run_date("2026-5-18"));
  EXPECT_FALSE(is_run_date("2026/05/18"));
  EXPECT_FALSE(is_run_date("2026-05-18T00"));
  EXPECT_FALSE(is_run_date(""));
}

TEST(RunDate, QuarterOfTheYear) {
  EXPECT_EQ(run_quarter("2025-01-01"), "2025Q1");
  EXPECT_EQ(run_quarter("2025-03-31"), "2025Q1");
  EXPECT_EQ(run_quarter("2025-04-01"), "2025Q2");
  EXPECT_EQ(run_quarter("2026-05-18"), "2026Q2");
  EXPECT_EQ(run_quarter("2025-09-30"), "2025Q3");
  EXPECT_EQ(run_quarter("2025-11-10"), "2025Q4");
  EXPECT_EQ(run_quarter(""), "undated");
  EXPECT_THROW(run_quarter("2025-11"), core::Error);
}

TEST(RunDate, DaysSinceTheEpoch) {
  EXPECT_EQ(run_day("1970-01-01"), 0);
  EXPECT_EQ(run_day("1970-03-01"), 31 + 28);
  EXPECT_EQ(run_day("2026-03-01") - run_day("2026-02-28"), 1);  // 2026 is not a leap year
  EXPECT_EQ(run_day("2024-03-01") - run_day("2024-02-28"), 2);  // 2024 is
  EXPECT_EQ(run_day("2027-01-01") - run_day("2026-01-01"), 365);
  EXPECT_THROW(run_day(""), core::Error);
  EXPECT_THROW(run_day("2026-02-30"), core::Error);
}

}  // namespace
}  // namespace agentsim::calib
