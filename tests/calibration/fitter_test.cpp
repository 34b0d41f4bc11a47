// Fitting measurements into efficiency tables: exact on separable data,
// monotone projection, held-out rows, extrapolation flags.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

#include "calibration/efficiency_profile.hpp"
#include "calibration/fitter.hpp"
#include "calibration/kernel_family.hpp"
#include "calibration/monotone.hpp"
#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

// achieved = 1 GFLOP/s x sqrt(m) x (n/128)^0.25: ln(efficiency) is linear in
// log2 m and log2 n, which the piecewise-linear model represents exactly.
double separable_rate(double m, double n) { return 1e9 * std::sqrt(m) * std::pow(n / 128, 0.25); }

MeasurementTable separable_gemm() {
  MeasurementTable t;
  t.family = "gemm";
  auto row = [&](double m, double n, bool held) {
    const double flops = 2 * m * n * 128;
    const double rate = separable_rate(m, n);
    t.add_row({{"m", m}, {"n", n}, {"k", 128}, {"dtype_bits", 16}, {"flops", flops}, {"achieved_flops_per_s", rate},
               {"time_s", flops / rate}, {"held_out", held ? 1.0 : 0.0}});
  };
  for (double m : {1, 2, 4, 8})
    for (double n : {128, 256}) row(m, n, false);
  row(3, 192, true);
  row(100, 128, true);  // beyond the largest fitted m: the lookup must say so
  return t;
}

TEST(Fitter, ReproducesSeparableDataExactly) {
  const FittedTable e = fit_table(separable_gemm(), 16, FitOptions{});
  EXPECT_EQ(e.name, "gemm_bf16");
  // Peak = best fitted rate = separable_rate(8, 256) = 1e9 * sqrt(8) * 2^0.25.
  EXPECT_NEAR(e.peak, 1e9 * std::sqrt(8.0) * std::pow(2.0, 0.25), 1.0);
  // Efficiency at (1, 128) = 1 / (sqrt(8) * 2^0.25) = 0.29730.
  EXPECT_NEAR(e.lookup({1, 128, 128}).value, 1 / (std::sqrt(8.0) * std::pow(2.0, 0.25)), 1e-9);
  EXPECT_EQ(e.fit_error.points, 8u);
  EXPECT_LT(e.fit_error.max_rel_error, 1e-9);
  // Held-out (3, 192) lies between knots; log-linear interpolation is exact there:
  // sqrt(3) * 1.5^0.25 / (sqrt(8) * 2^0.25).
  const EfficiencyLookup mid = e.lookup({3, 192, 128});
  EXPECT_FALSE(mid.extrapolated);
  EXPECT_NEAR(mid.value, std::sqrt(3.0) * std::pow(1.5, 0.25) / (std::sqrt(8.0) * std::pow(2.0, 0.25)), 1e-9);
  EXPECT_EQ(e.held_out_error.points, 2u);
}

// Two groups of rows that each rise along one axis only (m at n = 128, n at m = 1), as two
// kernels measured over disjoint shapes: the separable fit adds both rises at a shape measured
// by neither, past every measured value; the table never prices a call above its best point.
TEST(Fitter, NeverExceedsTheBestMeasuredValue) {
  MeasurementTable t;
  t.family = "gemm";
  auto row = [&](double m, double n, double rate) {
    const double flops = 2 * m * n * 128;
    t.add_row({{"m", m}, {"n", n}, {"k", 128}, {"dtype_bits", 16}, {"flops", flops}, {"achieved_flops_per_s", rate},
               {"time_s", flops / rate}, {"held_out", 0.0}});
  };
  for (double m : {1, 4, 16}) row(m, 128, 1e9 * m);   // rises 16x along m
  for (double n : {512, 2048}) row(1, n, 1e9 * n / 128);  // and 16x along n
  const FittedTable e = fit_table(t, 16, FitOptions{});
  EXPECT_NEAR(e.max_value, 1.0, 1e-12);  // the best row is the peak (efficiency 1)
  EXPECT_NEAR(e.lookup({16, 128, 128}).value, 1.0, 1e-6);
  // (16, 2048) was not measured: uncapped the fit gives ~16 (both rises); capped, the best point.
  EXPECT_LE(e.lookup({16, 2048, 128}).value, e.max_value);
  EXPECT_NEAR(e.lookup({4, 512, 128}).value, e.max_value, 1e-12);
  // The cap goes through the profile's YAML.
  EfficiencyProfile p;
  p.tables[e.name] = e;
  EXPECT_EQ(parse_profile(to_yaml(p), "p.yaml").table(e.name).max_value, e.max_value);
}

TEST(Fitter, FlagsExtrapolationAndHoldsTheEdgeValue) {
  const FittedTable e = fit_table(separable_gemm(), 16, FitOptions{});
  const EfficiencyLookup far = e.lookup({100, 128, 128});
  EXPECT_TRUE(far.extrapolated);
  EXPECT_NE(far.note.find("m=100 above measured 1..8"), std::string::npos) << far.note;
  EXPECT_NEAR(far.value, e.lookup({8, 128, 128}).value, 1e-12);
  // k was measured at 128 only: any other k is outside the measured range.
  EXPECT_TRUE(e.lookup({2, 128, 64}).extrapolated);
  // The held-out point at m = 100 is predicted with the edge value 8: its error is
  // 1 - sqrt(8/100) = 0.7172, the largest of the two held-out points.
  EXPECT_NEAR(e.held_out_error.max_rel_error, 1 - std::sqrt(8.0 / 100.0), 1e-9);
}

TEST(Fitter, MonotoneAxisIsProjectedByPoolingViolators) {
  MeasurementTable t;
  t.family = "mem_read";
  t.attributes["monotone"] = "size_bytes:+";
  const double rates[4] = {1e9, 3e9, 2e9, 4e9};
  for (int i = 0; i < 4; ++i) {
    const double size = 1024.0 * (1 << i);
    t.add_row({{"size_bytes", size}, {"bytes", size}, {"achieved_bytes_per_s", rates[i]}, {"time_s", size / rates[i]},
               {"held_out", 0}});
  }
  // Without smoothing the least squares interpolates: offsets [0, ln3, ln2, ln4]
  // against e = 0.25 at 1 KiB. Pooling the violating pair gives (ln3 + ln2) / 2 =
  // ln sqrt(6) twice; the re-centred constant stays ln 0.25 (the pooled residuals
  // cancel), so the fitted efficiencies are 0.25, 0.25 sqrt(6), 0.25 sqrt(6), 1.
  const FittedTable e = fit_table(t, 0, FitOptions{0.0});
  EXPECT_NEAR(e.lookup({1024}).value, 0.25, 1e-9);
  EXPECT_NEAR(e.lookup({2048}).value, 0.25 * std::sqrt(6.0), 1e-9);
  EXPECT_NEAR(e.lookup({4096}).value, 0.25 * std::sqrt(6.0), 1e-9);
  EXPECT_NEAR(e.lookup({8192}).value, 1.0, 1e-9);
  // Largest error: measured 0.5 at 4 KiB, fitted 0.6124: 0.6124 / 0.5 - 1 = 0.2247.
  EXPECT_NEAR(e.fit_error.max_rel_error, 0.25 * std::sqrt(6.0) / 0.5 - 1, 1e-9);
}

TEST(Fitter, SmoothingPullsANoisyPointTowardsItsNeighbours) {
  MeasurementTable t;
  t.family = "mem_copy";
  const double rates[5] = {1e9, 1e9, 2e9, 1e9, 1e9};
  for (int i = 0; i < 5; ++i) {
    const double size = 1024.0 * (1 << i);
    t.add_row({{"size_bytes", size}, {"bytes", 2 * size}, {"achieved_bytes_per_s", rates[i]}, {"time_s", 2 * size / rates[i]},
               {"held_out", 0}});
  }
  const FittedTable exact = fit_table(t, 0, FitOptions{0.0});
  const FittedTable smooth = fit_table(t, 0, FitOptions{1.0});
  // Unsmoothed, the spike (efficiency 1 against 0.5 elsewhere) is reproduced; smoothed, it is lowered.
  EXPECT_NEAR(exact.lookup({4096}).value, 1.0, 1e-9);
  EXPECT_LT(smooth.lookup({4096}).value, 0.95);
  EXPECT_GT(smooth.fit_error.max_rel_error, 0.05);
}

TEST(Fitter, RejectsAMonotoneAttributeNamingNoAxis) {
  MeasurementTable t = separable_gemm();
  t.attributes["monotone"] = "q:+";
  EXPECT_THROW(fit_table(t, 16, FitOptions{}), core::Error);
}

// Decode attention is fitted by the KV bytes one call reads (its `bytes`), not by batch and
// context: two calls of equal bytes (4 x 4096 and 16 x 1024) share one knot and one value, and
// a monotone attribute may name that fitted axis.
TEST(Fitter, DecodeAttentionIsFittedByTheKvBytesOfACall) {
  MeasurementTable t;
  t.family = "attention_decode";
  t.attributes["monotone"] = "kv_bytes:+";
  auto row = [&](double batch, double context, double rate) {
    const double bytes = batch * context * 1024;  // 1 KiB of KV per token
    t.add_row({{"batch", batch}, {"context", context}, {"bytes", bytes}, {"achieved_bytes_per_s", rate},
               {"time_s", bytes / rate}, {"held_out", 0}});
  };
  row(1, 1024, 1e11);   // 1 MiB
  row(4, 4096, 4e11);   // 16 MiB
  row(16, 1024, 4e11);  // 16 MiB again
  row(64, 4096, 8e11);  // 256 MiB: the fastest, efficiency 1
  const FittedTable e = fit_table(t, 0, FitOptions{0.0});
  ASSERT_EQ(e.axes.size(), 1u);
  EXPECT_EQ(e.axes[0].name, "kv_bytes");
  EXPECT_EQ(e.axes[0].monotone, 1);
  EXPECT_EQ(e.axes[0].knots.size(), 3u);
  EXPECT_NEAR(e.lookup({1024.0 * 1024}).value, 0.125, 1e-9);
  EXPECT_NEAR(e.lookup({16.0 * 1024 * 1024}).value, 0.5, 1e-9);
  EXPECT_NEAR(e.lookup({256.0 * 1024 * 1024}).value, 1.0, 1e-9);
  EXPECT_LT(e.fit_error.max_rel_error, 1e-9);
  t.attributes["monotone"] = "heads:+";  // neither a column nor the fitted axis
  EXPECT_THROW(fit_table(t, 0, FitOptions{0.0}), core::Error);
}

// Expert GEMMs with an HBM bandwidth attribute are fitted as roofline fractions: a
// memory-bound row (4 groups x m = 2: bytes/bw far above flops/peak) that took twice its
// roofline time is 0.5, and measured_values agrees with the fit on every row.
TEST(Fitter, GroupedGemmWithABandwidthIsARooflineFraction) {
  MeasurementTable t;
  t.family = "grouped_gemm";
  t.attributes["peak_fp8"] = "1e15";
  t.attributes["hbm_bw_Bps"] = "4e12";
  const double g = 4, n = 4096, k = 7168;
  for (double m : {2.0, 4096.0}) {
    const double flops = 2 * g * m * n * k;
    const double bytes = gemm_bytes(g, m, n, k, 8);
    const double roof_s = std::max(flops / 1e15, bytes / 4e12);
    const double time_s = 2 * roof_s;  // half the roofline either way
    t.add_row({{"groups", g}, {"m", m}, {"n", n}, {"k", k}, {"dtype_bits", 8}, {"flops", flops},
               {"achieved_flops_per_s", flops / time_s}, {"time_s", time_s}, {"held_out", 0}});
  }
  // bytes = 4 x (7168 x 4096 x 1 + 2 x 7168 x 1 + 2 x 4096 x 2) = 117,563,392
  EXPECT_DOUBLE_EQ(gemm_bytes(g, 2, n, k, 8), 117563392.0);
  const FittedTable e = fit_table(t, 8, FitOptions{});
  EXPECT_EQ(e.mem_bw_Bps, 4e12);
  EXPECT_NEAR(e.lookup({4, 2, n, k}).value, 0.5, 1e-9);     // FLOP efficiency would be ~1e-3
  EXPECT_NEAR(e.lookup({4, 4096, n, k}).value, 0.5, 1e-9);  // compute-bound: the FLOP efficiency
  for (double v : measured_values(t, e)) EXPECT_NEAR(v, 0.5, 1e-12);
  // Without the attribute the same rows are FLOP efficiencies: tiny at m = 2.
  t.attributes.erase("hbm_bw_Bps");
  const FittedTable f = fit_table(t, 8, FitOptions{});
  EXPECT_EQ(f.mem_bw_Bps, 0);
  EXPECT_LT(measured_values(t, f)[0], 0.01);
}

// A row's weight_scale_bytes column (NVFP4's 1-byte scale per 16 weights) counts in the roofline
// bytes and in the fitted weight_bytes axis: the fraction is of what the kernel really read.
TEST(Fitter, GroupedGemmBlockScalesCountInItsRooflineBytes) {
  MeasurementTable t;
  t.family = "grouped_gemm";
  t.attributes["peak_fp4"] = "1e16";
  t.attributes["hbm_bw_Bps"] = "8e12";
  const double g = 8, m = 1, n = 6144, k = 7168, scales = 1.0 / 16;
  const double flops = 2 * g * m * n * k;
  // bytes = 8 x (7168 x 6144 x (0.5 + 1/16) + 1 x 7168 x 0.5 + 1 x 6144 x 2)
  const double bytes = g * (k * n * (0.5 + scales) + m * k * 0.5 + m * n * 2);
  EXPECT_DOUBLE_EQ(gemm_bytes(g, m, n, k, 4, scales), bytes);
  const double time_s = bytes / 8e12 / 0.6;  // 60% of the roofline, scales included
  t.add_row({{"groups", g}, {"m", m}, {"n", n}, {"k", k}, {"dtype_bits", 4}, {"weight_scale_bytes", scales},
             {"flops", flops}, {"achieved_flops_per_s", flops / time_s}, {"time_s", time_s}, {"held_out", 0}});
  const FittedTable e = fit_table(t, 4, FitOptions{});
  EXPECT_NEAR(measured_values(t, e)[0], 0.6, 1e-12);
  EXPECT_DOUBLE_EQ(fitted_axis_value(t, "weight_bytes", 0), g * n * k * (0.5 + scales));
  // Without the column the same time reads as 0.6 x 0.5 / 0.5625 of the payload roofline.
  MeasurementTable bare;
  bare.family = "grouped_gemm";
  bare.attributes = t.attributes;
  bare.add_row({{"groups", g}, {"m", m}, {"n", n}, {"k", k}, {"dtype_bits", 4}, {"flops", flops},
                {"achieved_flops_per_s", flops / time_s}, {"time_s", time_s}, {"held_out", 0}});
  EXPECT_NEAR(measured_values(bare, fit_table(bare, 4, FitOptions{}))[0],
              0.6 * gemm_bytes(g, m, n, k, 4) / bytes, 1e-12);
}

TEST(Isotonic, PoolsAdjacentViolatorsByWeight) {
  // (3 w1, 1 w3) pool to (3 + 3) / 4 = 1.5; then 2 stays.
  const auto v = isotonic_non_decreasing({3, 1, 2}, {1, 3, 1});
  ASSERT_EQ(v.size(), 3u);
  EXPECT_DOUBLE_EQ(v[0], 1.5);
  EXPECT_DOUBLE_EQ(v[1], 1.5);
  EXPECT_DOUBLE_EQ(v[2], 2.0);
}

}  // namespace
}  // namespace agentsim::calib
