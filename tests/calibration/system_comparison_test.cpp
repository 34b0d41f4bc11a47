// compare_systems: rows of the same work on two systems paired, their ratio measured and predicted.
#include "calibration/system_comparison.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

const std::size_t kOut = measured_metric_index("output_tok_s_per_gpu");

MeasuredRun row(const std::string& id, const std::string& system, double out, const std::string& plan = "tp=8",
                const std::string& date = "2026-02-01") {
  MeasuredRun r;
  for (double& m : r.metrics) m = std::nan("");
  r.id = id;
  r.system = system;
  r.model = "deepseek-r1";
  r.engine = "sglang";
  r.plan = plan;
  r.isl = 1024;
  r.osl = 1024;
  r.concurrency = 16;
  r.run_date = date;
  r.metrics[kOut] = out;
  return r;
}

TEST(SystemComparison, RatioOfTheSecondSystemOverTheFirstMeasuredAndPredicted) {
  // hgx-b200 measures 1,000 and is predicted 1,100; hgx-h200 measures 500 and is predicted 440.
  const std::vector<MeasuredRun> runs = {row("b", "hgx-b200", 1000), row("h", "hgx-h200", 500)};
  const SystemComparisons c = compare_systems(runs, {1100, 440}, "output_tok_s_per_gpu");
  ASSERT_EQ(c.systems.size(), 1u);
  const SystemPair& p = c.systems[0];
  EXPECT_EQ(p.a, "hgx-b200");
  EXPECT_EQ(p.b, "hgx-h200");
  EXPECT_EQ(p.pairs, 1);
  EXPECT_DOUBLE_EQ(p.measured_ratio_median, 0.5);
  EXPECT_DOUBLE_EQ(p.predicted_ratio_median, 0.4);
  EXPECT_NEAR(p.ratio_error_median_pct, -20.0, 1e-9);  // 0.4 / 0.5 - 1
  EXPECT_NEAR(p.abs_ratio_error_median_pct, 20.0, 1e-9);
  EXPECT_EQ(p.same_winner, 1);
  EXPECT_EQ(c.pairs, 1);
  EXPECT_EQ(c.same_winner, 1);
  EXPECT_EQ(c.metric, "output_tok_s_per_gpu");
}

TEST(SystemComparison, AWrongRankingIsCounted) {
  // Measured: the second system 10% faster; predicted: 10% slower.
  const std::vector<MeasuredRun> runs = {row("a", "hgx-b200", 1000), row("b", "hgx-h200", 1100)};
  const SystemComparisons c = compare_systems(runs, {1000, 900}, "output_tok_s_per_gpu");
  ASSERT_EQ(c.systems.size(), 1u);
  EXPECT_EQ(c.systems[0].same_winner, 0);
  EXPECT_EQ(c.same_winner, 0);
}

TEST(SystemComparison, APairIsDecidedWhenTheMeasuredRatioIsTenPercentFromOne) {
  // Three works: measured ratios 1.05 (too close to call), 1.25 and 1 / 1.25, each predicted the
  // wrong way round; only the last two count among the decided pairs.
  std::vector<MeasuredRun> runs = {row("a1", "hgx-b200", 1000), row("b1", "hgx-h200", 1050),
                                   row("a2", "hgx-b200", 1000), row("b2", "hgx-h200", 1250),
                                   row("a3", "hgx-b200", 1000), row("b3", "hgx-h200", 800)};
  runs[2].concurrency = runs[3].concurrency = 32;
  runs[4].concurrency = runs[5].concurrency = 64;
  const SystemComparisons c = compare_systems(runs, {1000, 950, 1000, 900, 1000, 1100}, "output_tok_s_per_gpu");
  ASSERT_EQ(c.systems.size(), 1u);
  EXPECT_EQ(c.systems[0].pairs, 3);
  EXPECT_EQ(c.systems[0].same_winner, 0);
  EXPECT_EQ(c.systems[0].decided, 2);
  EXPECT_EQ(c.systems[0].decided_same_winner, 0);
  EXPECT_EQ(c.decided, 2);
  // Predicted the right way round instead: all three ranked right, both decided ones too.
  const SystemComparisons r = compare_systems(runs, {1000, 1010, 1000, 1300, 1000, 700}, "output_tok_s_per_gpu");
  EXPECT_EQ(r.same_winner, 3);
  EXPECT_EQ(r.decided_same_winner, 2);
}

TEST(SystemComparison, OnlyTheSameWorkIsPaired) {
  std::vector<MeasuredRun> runs = {row("a", "hgx-b200", 1000), row("b", "hgx-h200", 500), row("c", "hgx-h200", 400),
                                   row("d", "hgx-h200", 300), row("e", "hgx-h200", 200), row("f", "hgx-h200", 100)};
  runs[2].osl = 8192;            // other lengths
  runs[3].engine = "trtllm";     // another engine
  runs[4].speculative = true;    // speculation on
  runs[5].experts_dtype = "fp4"; // other experts' format
  const SystemComparisons c = compare_systems(runs, {1000, 500, 400, 300, 200, 100}, "output_tok_s_per_gpu");
  ASSERT_EQ(c.systems.size(), 1u);
  EXPECT_EQ(c.systems[0].pairs, 1);
  EXPECT_DOUBLE_EQ(c.systems[0].measured_ratio_median, 0.5);
}

TEST(SystemComparison, SamePlanFirstThenNearestDateEachPairOnce) {
  // hgx-h200's row "x" ran tp=8 as hgx-b200's "a" did, though "y" was measured nearer in date:
  // "a" pairs with "x"; "y" (from its side) pairs with "a" too, so two pairs, each once.
  const std::vector<MeasuredRun> runs = {row("a", "hgx-b200", 1000, "tp=8", "2026-02-01"),
                                         row("x", "hgx-h200", 500, "tp=8", "2026-01-20"),
                                         row("y", "hgx-h200", 800, "tp=4", "2026-02-02")};
  const SystemComparisons c = compare_systems(runs, {1000, 500, 800}, "output_tok_s_per_gpu");
  ASSERT_EQ(c.systems.size(), 1u);
  EXPECT_EQ(c.systems[0].pairs, 2);
  EXPECT_DOUBLE_EQ(c.systems[0].measured_ratio_median, 0.65);  // median of 0.5 and 0.8
  // Without a same-plan row the nearest date wins.
  const std::vector<MeasuredRun> dated = {row("a", "hgx-b200", 1000, "tp=8", "2026-02-01"),
                                          row("y", "hgx-h200", 800, "tp=4", "2026-02-25"),
                                          row("z", "hgx-h200", 600, "tp=4", "2026-02-10")};
  const SystemComparisons d = compare_systems(dated, {1000, 800, 600}, "output_tok_s_per_gpu");
  ASSERT_EQ(d.systems.size(), 1u);
  EXPECT_EQ(d.systems[0].pairs, 2);  // a-z (a's choice), and y and z each pair with a
  // Only one row on hgx-b200, so every pair has it: the ratios are 0.8 and 0.6.
  EXPECT_DOUBLE_EQ(d.systems[0].measured_ratio_median, 0.7);
}

TEST(SystemComparison, OnlyRowsMeasuredWithinAReleaseCyclePair) {
  // "x" 31 days after "a" pairs, "y" 32 days after does not, nor does the undated "u"; two
  // undated rows pair (a source that states no date, e.g. one MLPerf round, is one moment).
  const std::vector<MeasuredRun> runs = {row("a", "hgx-b200", 1000, "tp=8", "2026-02-01"),
                                         row("x", "hgx-h200", 500, "tp=4", "2026-03-04"),
                                         row("y", "hgx-h200", 800, "tp=8", "2026-03-05"),
                                         row("u", "hgx-h200", 700, "tp=8", "")};
  const SystemComparisons c = compare_systems(runs, {1000, 500, 800, 700}, "output_tok_s_per_gpu");
  ASSERT_EQ(c.systems.size(), 1u);
  EXPECT_EQ(c.systems[0].pairs, 1);
  EXPECT_DOUBLE_EQ(c.systems[0].measured_ratio_median, 0.5);
  const std::vector<MeasuredRun> undated = {row("a", "hgx-b200", 1000, "tp=8", ""),
                                            row("u", "hgx-h200", 700, "tp=8", "")};
  EXPECT_EQ(compare_systems(undated, {1000, 700}, "output_tok_s_per_gpu").pairs, 1);
  const std::vector<MeasuredRun> apart = {row("a", "hgx-b200", 1000, "tp=8", "2025-11-01"),
                                          row("y", "hgx-h200", 800, "tp=8", "2026-02-01")};
  EXPECT_TRUE(compare_systems(apart, {1000, 800}, "output_tok_s_per_gpu").systems.empty());
}

TEST(SystemComparison, RowsWithoutAPredictionOrMeasurementAreLeftOut) {
  std::vector<MeasuredRun> runs = {row("a", "hgx-b200", 1000), row("b", "hgx-h200", 500), row("c", "mi355x-8", 700)};
  const SystemComparisons c = compare_systems(runs, {1000, std::nan(""), 700}, "output_tok_s_per_gpu");
  ASSERT_EQ(c.systems.size(), 1u);
  EXPECT_EQ(c.systems[0].b, "mi355x-8");
  runs[2].metrics[kOut] = std::nan("");
  EXPECT_TRUE(compare_systems(runs, {1000, std::nan(""), 700}, "output_tok_s_per_gpu").systems.empty());
}

TEST(SystemComparison, MostPairsFirstAndTheMedianOverEveryPair) {
  const std::vector<MeasuredRun> runs = {
      row("a1", "hgx-b200", 1000, "tp=8", "2026-01-01"), row("a2", "hgx-b200", 1000, "tp=4", "2026-01-20"),
      row("h1", "hgx-h200", 500, "tp=8", "2026-01-01"),  row("h2", "hgx-h200", 500, "tp=4", "2026-01-20"),
      row("m1", "mi355x-8", 1000, "tp=8", "2026-01-01")};
  // b200/h200: two pairs (a1-h1, a2-h2) predicted 0.5 and 0.6 against 0.5 measured (0% and +20%);
  // b200/mi355x: a1-m1 and a2-m1, predicted 1.0 and 1.0; h200/mi355x: h1-m1, h2-m1.
  const SystemComparisons c = compare_systems(runs, {1000, 1000, 500, 600, 1000}, "output_tok_s_per_gpu");
  ASSERT_EQ(c.systems.size(), 3u);
  EXPECT_EQ(c.pairs, 6);
  EXPECT_EQ(c.systems[0].pairs, 2);
  EXPECT_EQ(c.systems[0].a, "hgx-b200");
  EXPECT_EQ(c.systems[0].b, "hgx-h200");
  EXPECT_NEAR(c.systems[0].abs_ratio_error_max_pct, 20.0, 1e-9);
  // h200/mi355x: measured 2.0 twice, predicted 2.0 and 1000/600 (-16.7%): every |error| is
  // 0, 20, 0, 0, 0, 16.7, median 0.
  EXPECT_NEAR(c.abs_ratio_error_median_pct, 0.0, 1e-9);
}

TEST(SystemComparison, TheYamlFileRoundTripsAndFindsAPairInEitherOrder) {
  const std::vector<MeasuredRun> runs = {row("a1", "hgx-b200", 1000, "tp=8", "2026-01-01"),
                                         row("h1", "hgx-h200", 500, "tp=8", "2026-01-01"),
                                         row("m1", "mi355x-8", 1200, "tp=8", "2026-01-01")};
  SystemComparisons c = compare_systems(runs, {1000, 600, 1000}, "output_tok_s_per_gpu");
  c.provenance = "a test";
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "agentsim_system_comparisons.yaml";
  std::ofstream(file) << system_comparisons_yaml(c);
  const SystemComparisons back = load_system_comparisons(file.string());
  EXPECT_EQ(back.provenance, "a test");
  EXPECT_EQ(back.metric, "output_tok_s_per_gpu");
  ASSERT_EQ(back.systems.size(), c.systems.size());
  EXPECT_EQ(back.pairs, c.pairs);
  EXPECT_EQ(back.same_winner, c.same_winner);
  EXPECT_EQ(back.decided, c.decided);
  EXPECT_DOUBLE_EQ(back.abs_ratio_error_median_pct, c.abs_ratio_error_median_pct);
  for (std::size_t i = 0; i < c.systems.size(); ++i) {
    EXPECT_EQ(back.systems[i].a, c.systems[i].a);
    EXPECT_EQ(back.systems[i].b, c.systems[i].b);
    EXPECT_DOUBLE_EQ(back.systems[i].measured_ratio_median, c.systems[i].measured_ratio_median);
    EXPECT_DOUBLE_EQ(back.systems[i].predicted_ratio_median, c.systems[i].predicted_ratio_median);
    EXPECT_DOUBLE_EQ(back.systems[i].abs_ratio_error_max_pct, c.systems[i].abs_ratio_error_max_pct);
  }
  const SystemPair* p = back.find("hgx-h200", "hgx-b200");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p, back.find("hgx-b200", "hgx-h200"));
  EXPECT_EQ(p->a, "hgx-b200");
  EXPECT_DOUBLE_EQ(p->measured_ratio_median, 0.5);
  EXPECT_EQ(back.find("hgx-b200", "gb200-nvl72"), nullptr);
  // No pair: the file has no median, and reads back as none.
  SystemComparisons none = compare_systems({runs[0]}, {1000}, "output_tok_s_per_gpu");
  std::ofstream(file) << system_comparisons_yaml(none);
  const SystemComparisons empty = load_system_comparisons(file.string());
  EXPECT_TRUE(empty.systems.empty());
  EXPECT_TRUE(std::isnan(empty.abs_ratio_error_median_pct));
  std::filesystem::remove(file);
}

TEST(SystemComparison, ABadFileNamesItsLineAndKey) {
  const std::filesystem::path file = std::filesystem::temp_directory_path() / "agentsim_system_comparisons_bad.yaml";
  const auto message = [&](const std::string& text) {
    std::ofstream(file) << text;
    try {
      load_system_comparisons(file.string());
    } catch (const core::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head =
      "provenance: x\nmetric: output_tok_s_per_gpu\ndecided_ratio: 1.1\nabs_ratio_error_median_pct: 11.7\nsystems:\n";
  const std::string pair =
      "measured_ratio_median: 0.8, predicted_ratio_median: 0.79, ratio_error_median_pct: 4.9, "
      "abs_ratio_error_median_pct: 13.6, abs_ratio_error_max_pct: 87.7}\n";
  // The good file loads; each bad one names its line and key.
  EXPECT_EQ(message(head + "  - {a: hgx-b200, b: hgx-h200, pairs: 64, same_winner: 49, decided: 55, "
                           "decided_same_winner: 45, " + pair),
            "no error");
  const std::string more_wins = message(head + "  - {a: hgx-b200, b: hgx-h200, pairs: 64, same_winner: 65, decided: 55, "
                                               "decided_same_winner: 45, " + pair);
  EXPECT_NE(more_wins.find(":6: systems[0]"), std::string::npos) << more_wins;
  const std::string unordered = message(head + "  - {a: hgx-h200, b: hgx-b200, pairs: 64, same_winner: 49, decided: 55, "
                                               "decided_same_winner: 45, " + pair);
  EXPECT_NE(unordered.find("a < b"), std::string::npos) << unordered;
  const std::string unknown = message(head + "  - {a: hgx-b200, b: hgx-h200, pairs: 64, same_winner: 49, decided: 55, "
                                             "decided_same_winner: 45, ranked: 3, " + pair);
  EXPECT_NE(unknown.find(":6: systems[0].ranked: unknown key"), std::string::npos) << unknown;
  const std::string no_median = message("metric: output_tok_s_per_gpu\ndecided_ratio: 1.1\nsystems:\n  - {a: hgx-b200, "
                                        "b: hgx-h200, pairs: 64, same_winner: 49, decided: 55, decided_same_winner: 45, " +
                                        pair);
  EXPECT_NE(no_median.find("abs_ratio_error_median_pct: missing required key"), std::string::npos) << no_median;
  const std::string ratio = message("metric: output_tok_s_per_gpu\ndecided_ratio: 1.2\nsystems: []\n");
  EXPECT_NE(ratio.find(":2: decided_ratio"), std::string::npos) << ratio;
  const std::string metric = message("metric: tok_s\ndecided_ratio: 1.1\nsystems: []\n");
  EXPECT_NE(metric.find(":1: metric"), std::string::npos) << metric;
  std::filesystem::remove(file);
}

}  // namespace
}  // namespace agentsim::calib
