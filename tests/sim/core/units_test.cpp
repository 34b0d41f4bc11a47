#include "sim/core/units.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace agentsim::core {
namespace {

TEST(Units, ParsesEachDimension) {
  EXPECT_DOUBLE_EQ(parse_quantity("4.8TB/s", Dimension::kBandwidth), 4.8e12);
  EXPECT_DOUBLE_EQ(parse_quantity("400Gb/s", Dimension::kBandwidth), 50e9);
  EXPECT_DOUBLE_EQ(parse_quantity("141GB", Dimension::kBytes), 141e9);
  EXPECT_DOUBLE_EQ(parse_quantity("64KiB", Dimension::kBytes), 65536.0);
  EXPECT_DOUBLE_EQ(parse_quantity("2us", Dimension::kTime), 2e-6);
  EXPECT_DOUBLE_EQ(parse_quantity("1.5 ms", Dimension::kTime), 1.5e-3);
  EXPECT_DOUBLE_EQ(parse_quantity("10min", Dimension::kTime), 600.0);
  EXPECT_DOUBLE_EQ(parse_quantity("1.4kW", Dimension::kPower), 1400.0);
  EXPECT_DOUBLE_EQ(parse_quantity("989TFLOP/s", Dimension::kFlopRate), 989e12);
}

std::string message(std::string_view text, Dimension d) {
  try {
    parse_quantity(text, d);
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(Units, ErrorsSayWhatWasExpected) {
  EXPECT_EQ(message("4.8", Dimension::kBandwidth),
            "'4.8' has no unit: expected a bandwidth such as \"4.8TB/s\", \"400Gb/s\"");
  EXPECT_EQ(message("4.8TB", Dimension::kBandwidth),
            "unit 'TB' in '4.8TB' is the wrong kind: expected a bandwidth such as \"4.8TB/s\", \"400Gb/s\"");
  EXPECT_EQ(message("3 parsecs", Dimension::kTime),
            "unknown unit 'parsecs' in '3 parsecs': expected a time such as \"2us\", \"1.5ms\", \"30s\"");
  EXPECT_EQ(message("fast", Dimension::kTime),
            "cannot read 'fast': expected a time such as \"2us\", \"1.5ms\", \"30s\"");
  EXPECT_EQ(message("-5W", Dimension::kPower), "'-5W' must be finite and non-negative");
}

// Found by fuzz_units (tests/fuzz/regressions/units/overflow_1e308PB): 1e308 is a finite
// double but 1e308 * 1e15 B overflows to inf, which used to be returned as a size.
TEST(Units, ValueThatOverflowsOnceScaledIsAnError) {
  EXPECT_EQ(message("1e308PB", Dimension::kBytes),
            "'1e308PB' is too large: expected a size such as \"141GB\", \"64KiB\"");
  EXPECT_DOUBLE_EQ(parse_quantity("1e290PB", Dimension::kBytes), 1e305);  // 1e290 * 1e15 still fits in a double
}

TEST(Units, FormatsWithPrefixes) {
  EXPECT_EQ(format_quantity(4.8e12, Dimension::kBandwidth), "4.8 TB/s");
  EXPECT_EQ(format_quantity(2e-6, Dimension::kTime), "2 us");
  EXPECT_EQ(format_quantity(141e9, Dimension::kBytes), "141 GB");
}

}  // namespace
}  // namespace agentsim::core
