// closed_loop_check: a measured row's throughput against the rate its own latencies imply.
#include "calibration/closed_loop_check.hpp"

#include <cmath>

#include <gtest/gtest.h>

namespace agentsim::calib {
namespace {

MeasuredRun loop_row(double out_per_gpu, double ttft_s, double tpot_s) {
  MeasuredRun r;
  for (double& m : r.metrics) m = std::nan("");
  r.gpus = 8;
  r.osl = 1024;
  r.concurrency = 8;
  r.metrics[measured_metric_index("output_tok_s_per_gpu")] = out_per_gpu;
  r.metrics[measured_metric_index("ttft_s_median")] = ttft_s;
  r.metrics[measured_metric_index("tpot_s_median")] = tpot_s;
  return r;
}

TEST(ClosedLoopCheck, RatioOfMeasuredToImpliedOutputRate) {
  // The shipped row IXF-b200-sglang-fp4-none-agg-8k1k-tp8ep1-c8: 39.972 tok/s per GPU on 8 GPUs,
  // median TTFT 0.5648 s and TPOT 0.013645 s. Implied: 8 x 1024 / (0.5648 + 1023 x 0.013645)
  // = 8192 / 14.523635 = 564.04 tok/s; measured 319.776: ratio 0.5669.
  const ClosedLoopCheck stalled = closed_loop_check(loop_row(39.972, 0.5648, 0.013645));
  EXPECT_NEAR(stalled.ratio, 0.5669, 5e-4);
  EXPECT_TRUE(stalled.suspect);
  // A row whose rate is what its latencies imply: ratio 1, not flagged.
  const double implied_per_gpu = 8.0 * 1024 / (0.33 + 1023 * 0.0128) / 8;
  const ClosedLoopCheck steady = closed_loop_check(loop_row(implied_per_gpu, 0.33, 0.0128));
  EXPECT_NEAR(steady.ratio, 1.0, 1e-12);
  EXPECT_FALSE(steady.suspect);
  // Just above and below the threshold.
  EXPECT_FALSE(closed_loop_check(loop_row(implied_per_gpu * 0.76, 0.33, 0.0128)).suspect);
  EXPECT_TRUE(closed_loop_check(loop_row(implied_per_gpu * 0.74, 0.33, 0.0128)).suspect);
}

TEST(ClosedLoopCheck, NotCheckableWithoutLatenciesOrAClosedLoop) {
  MeasuredRun no_tpot = loop_row(40, 0.5, 0.0136);
  no_tpot.metrics[measured_metric_index("tpot_s_median")] = std::nan("");
  EXPECT_TRUE(std::isnan(closed_loop_check(no_tpot).ratio));
  EXPECT_FALSE(closed_loop_check(no_tpot).suspect);
  // trtllm-bench queued every request at once: no closed loop to compare with.
  MeasuredRun bench = loop_row(10, 0.5, 0.0136);
  bench.trtllm_bench = true;
  EXPECT_TRUE(std::isnan(closed_loop_check(bench).ratio));
  EXPECT_FALSE(closed_loop_check(bench).suspect);
}

}  // namespace
}  // namespace agentsim::calib
