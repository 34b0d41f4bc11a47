// The profile YAML: exact round trip and strict decoding.
#include <gtest/gtest.h>

#include <cmath>

#include "calibration/efficiency_profile.hpp"
#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

EfficiencyProfile sample() {
  EfficiencyProfile p;
  p.device = "dev";
  p.backend = "cpu";
  p.source = "cal.h5";
  p.calibration_date = "2025-01-01T00:00:00Z";
  FittedTable t;
  t.name = "mem_read";
  t.family = "mem_read";
  t.quantity = Quantity::kMemory;
  t.peak = 4.1e10;
  t.peak_source = "best measured";
  t.log_constant = -0.1234567890123;
  t.axes.push_back({"size_bytes", 1, {4096, 8192, 16384}, {0, 0.3, 0.7}});
  t.fit_error = {3, 0.01, 0.02};
  t.held_out_error = {1, 0.05, 0.05};
  p.tables[t.name] = t;
  return p;
}

TEST(EfficiencyProfile, RoundTripsExactly) {
  const EfficiencyProfile back = parse_profile(to_yaml(sample()), "p.yaml");
  const FittedTable& t = back.table("mem_read");
  EXPECT_EQ(t.log_constant, -0.1234567890123);
  EXPECT_EQ(t.peak, 4.1e10);
  EXPECT_EQ(t.axes.at(0).knots.at(2), 16384.0);
  EXPECT_EQ(t.axes.at(0).log_offsets.at(1), 0.3);
  EXPECT_EQ(t.quantity, Quantity::kMemory);
  EXPECT_EQ(t.fit_error.points, 3u);
  // exp(-0.1234567890123 + 0.5 * (0.3 + 0.7)) at the log2 midpoint of 8 and 16 KiB.
  EXPECT_NEAR(t.lookup({8192 * std::sqrt(2.0)}).value, std::exp(-0.1234567890123 + 0.5), 1e-12);
}

TEST(EfficiencyProfile, UnknownKeyIsAnErrorWithLineAndSuggestion) {
  std::string yaml = to_yaml(sample());
  const auto pos = yaml.find("peak_source");
  yaml.replace(pos, 11, "peak_sorce");
  try {
    parse_profile(yaml, "p.yaml");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    const std::string msg = e.what();
    EXPECT_EQ(e.where().file, "p.yaml");
    EXPECT_GT(e.where().line, 0);
    EXPECT_EQ(e.where().key_path, "tables.mem_read.peak_sorce");
    EXPECT_NE(msg.find("did you mean 'peak_source'"), std::string::npos) << msg;
  }
}

TEST(EfficiencyProfile, WrongSchemaAndUnknownTableAreErrors) {
  std::string yaml = to_yaml(sample());
  yaml.replace(yaml.find("profile/1"), 9, "profile/9");
  EXPECT_THROW(parse_profile(yaml, "p.yaml"), core::Error);
  EXPECT_THROW(sample().table("mem_reed"), core::Error);
}

// Found while writing fuzz_efficiency_profile (tests/fuzz/regressions/efficiency_profile/):
// yaml-cpp reads ".nan" and ".inf" as doubles, so a NaN log_constant was accepted and every
// lookup returned NaN; a list used as a table name threw YAML::BadConversion past the decoder.
TEST(EfficiencyProfile, NonFiniteNumbersAndNonScalarTableNamesAreLocatedErrors) {
  std::string yaml = to_yaml(sample());
  const auto at = yaml.find("log_constant: ");
  ASSERT_NE(at, std::string::npos);
  yaml.replace(at, yaml.find('\n', at) - at, "log_constant: .nan");
  try {
    parse_profile(yaml, "p.yaml");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where().key_path, "tables.mem_read.log_constant");
    EXPECT_GT(e.where().line, 0);
    EXPECT_EQ(e.detail(), "expected a finite number in [-100, 100]");
  }
  std::string inf = to_yaml(sample());
  const auto peak = inf.find("peak: ");
  inf.replace(peak, inf.find('\n', peak) - peak, "peak: .inf");
  EXPECT_THROW(parse_profile(inf, "p.yaml"), core::Error);
  const std::string list_key =
      "schema: agentsim-efficiency-profile/1\ndevice: d\nbackend: cpu\nsource: s\ncalibration_date: x\n"
      "tables:\n  [a, b]: {}\n";
  try {
    parse_profile(list_key, "p.yaml");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where().file, "p.yaml");
    EXPECT_NE(e.detail().find("unexpected YAML structure"), std::string::npos) << e.what();
  }
}

// constant_between: true exactly where no knot between two shapes bends the value, so a
// lookup anywhere between them gives the value at either end.
TEST(FittedTable, ConstantBetweenOnlyWhereNoKnotBendsTheValue) {
  FittedTable t = sample().tables.at("mem_read");  // knots 4096, 8192, 16384; offsets 0, 0.3, 0.7
  auto constant = [&](double a, double b) { return t.constant_between(&a, &b, 1); };
  EXPECT_TRUE(constant(1000, 4096));     // both held at the first knot
  EXPECT_TRUE(constant(16384, 1e9));     // both held at the last knot
  EXPECT_TRUE(constant(6000, 6000));     // one shape
  EXPECT_FALSE(constant(5000, 6000));    // inside a sloped segment
  EXPECT_FALSE(constant(1000, 5000));    // from the held edge into the slope
  EXPECT_FALSE(constant(20000, 10000));  // either order
  t.axes[0].log_offsets = {0.3, 0.3, 0.7};  // the first segment flat
  EXPECT_TRUE(constant(1000, 8192));
  EXPECT_FALSE(constant(1000, 8193));
  for (double x : {1000.0, 4096.0, 6000.0, 8192.0}) {
    EXPECT_NEAR(t.lookup({x}).value, t.lookup({1000.0}).value, 1e-15) << x;
  }
  t.axes[0].knots = {4096};  // one knot: constant everywhere
  t.axes[0].log_offsets = {0.5};
  EXPECT_TRUE(constant(1, 1e12));
  const double two[2] = {1, 2};
  EXPECT_FALSE(t.constant_between(two, two, 2)) << "shape of the wrong rank";
}

}  // namespace
}  // namespace agentsim::calib
