#include "calibration/validation_report.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <sstream>

#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

constexpr const char* kHeader =
    "id,source,system,model,plan,gpus,isl,osl,concurrency,output_tok_s_per_gpu,total_tok_s_per_gpu,"
    "agent_output_tok_s,ttft_s_mean,tpot_s_mean,tpot_s_median,power_w_per_gpu,notes\n";

std::vector<MeasuredRun> fixture() {
  std::istringstream in(std::string(kHeader) +
                        "a,S,hgx-h200,m,tp=8,8,1024,1024,8,100,,,0.5,0.010,,,\n"
                        "b,S,hgx-h200,m,tp=8,8,1024,1024,16,200,,,,0.020,,,\n");
  return read_measured_runs(in, "fixture.csv");
}

TEST(ValidationReport, HandComputedErrorsAndMape) {
  const auto runs = fixture();
  const double nan = std::numeric_limits<double>::quiet_NaN();
  // Predictions: a: 110 tok/s (+10%), TTFT 0.4 s (-20%), TPOT 0.011 (+10%);
  //              b: 150 tok/s (-25%), TPOT 0.020 (0%), and a TTFT nobody measured.
  std::vector<std::vector<double>> pred(2, std::vector<double>(kMeasuredMetricCount, nan));
  const auto out = measured_metric_index("output_tok_s_per_gpu");
  const auto ttft = measured_metric_index("ttft_s_mean");
  const auto tpot = measured_metric_index("tpot_s_mean");
  pred[0][out] = 110;
  pred[0][ttft] = 0.4;
  pred[0][tpot] = 0.011;
  pred[1][out] = 150;
  pred[1][tpot] = 0.020;
  pred[1][ttft] = 0.3;
  const ValidationReport rep = compare(runs, pred);
  ASSERT_EQ(rep.errors.size(), 5u);
  EXPECT_NEAR(rep.errors[0].error_pct, 10.0, 1e-9);
  ASSERT_EQ(rep.summaries.size(), 3u);
  EXPECT_EQ(rep.summaries[0].metric, "output_tok_s_per_gpu");
  EXPECT_EQ(rep.summaries[0].rows, 2);
  EXPECT_NEAR(rep.summaries[0].mape_pct, 17.5, 1e-9);   // (10 + 25) / 2
  EXPECT_NEAR(rep.summaries[0].max_abs_pct, 25.0, 1e-9);
  EXPECT_NEAR(rep.summaries[0].mean_pct, -7.5, 1e-9);   // (10 - 25) / 2: signed, so it can cancel
  EXPECT_EQ(rep.summaries[1].metric, "ttft_s_mean");
  EXPECT_NEAR(rep.summaries[1].mape_pct, 20.0, 1e-9);
  EXPECT_NEAR(rep.summaries[2].mape_pct, 5.0, 1e-9);    // (10 + 0) / 2
  EXPECT_NEAR(rep.summaries[1].mean_pct, -20.0, 1e-9);  // one TTFT measured, predicted 20% low
  const auto worst = rep.worst(2);
  ASSERT_EQ(worst.size(), 2u);
  EXPECT_EQ(worst[0].id, "b");
  EXPECT_EQ(worst[0].metric, "output_tok_s_per_gpu");
  EXPECT_EQ(worst[1].metric, "ttft_s_mean");
}

std::string error_of(const std::string& rows) {
  std::istringstream in(std::string(kHeader) + rows);
  try {
    read_measured_runs(in, "m.csv");
  } catch (const core::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(MeasuredRuns, BadRowsNameLineAndColumn) {
  EXPECT_EQ(error_of("a,S,hgx-h200,m,tp=8,8,1024,1024,8,100,,,,,,,\na,S,hgx-h200,m,tp=8,8,1024,1024,8,100,,,,,,,\n"),
            "m.csv:3: id: duplicate id 'a'");
  EXPECT_EQ(error_of("a,S,hgx-h200,m,tp=8,0,1024,1024,8,100,,,,,,,\n"),
            "m.csv:2: gpus: expected a GPU count in [1, 1000000]");
  EXPECT_EQ(error_of("a,S,hgx-h200,m,tp=8,8,1024,1024,8,-3,,,,,,,\n"),
            "m.csv:2: output_tok_s_per_gpu: expected a positive value or an empty field");
  EXPECT_EQ(error_of("a,S,hgx-h200,m,tp=8,8,1024,1024,8,,,,,,,,\n"), "m.csv:2: output_tok_s_per_gpu: row reports no metric");
  EXPECT_EQ(error_of("a,S,hgx-h200,m,tp=8,8,1024,lots,8,1,,,,,,,\n"), "m.csv:2: osl: expected an integer, found 'lots'");
}

// The optional run_date column: a calendar date, or empty (undated); anything else names its cell.
TEST(MeasuredRuns, RunDateIsACalendarDate) {
  const std::string header =
      "id,source,system,model,plan,gpus,isl,osl,concurrency,output_tok_s_per_gpu,total_tok_s_per_gpu,"
      "agent_output_tok_s,ttft_s_mean,tpot_s_mean,tpot_s_median,power_w_per_gpu,run_date\n";
  std::istringstream ok(header + "a,S,hgx-h200,m,tp=8,8,1024,1024,8,100,,,,,,,2024-02-29\nb,S,hgx-h200,m,tp=8,8,1024,1024,8,100,,,,,,,\n");
  const auto runs = read_measured_runs(ok, "d.csv");
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].run_date, "2024-02-29");
  EXPECT_EQ(runs[1].run_date, "");
  for (const std::string bad : {"2025-02-29", "2026-5-18", "18/05/2026", "2026-13-01"}) {
    std::istringstream in(header + "a,S,hgx-h200,m,tp=8,8,1024,1024,8,100,,,,,,," + bad + "\n");
    try {
      read_measured_runs(in, "d.csv");
      ADD_FAILURE() << bad << " was read";
    } catch (const core::Error& e) {
      EXPECT_EQ(std::string(e.what()), "d.csv:2: run_date: expected the date the run was measured, YYYY-MM-DD") << bad;
    }
  }
}

TEST(MeasuredRuns, TheShippedValidationSetLoads) {
  const auto runs = load_measured_runs(std::string(AGENTSIM_SOURCE_DIR) + "/experiments/validation/measured_runs.csv");
  EXPECT_EQ(runs.size(), 11u);
  EXPECT_EQ(runs[0].plan, "tp=8,ep=1");
  EXPECT_DOUBLE_EQ(runs[0].metrics[measured_metric_index("tpot_s_mean")], 0.0128);
  EXPECT_THROW(measured_metric_index("tok"), core::Error);
}

}  // namespace
}  // namespace agentsim::calib
