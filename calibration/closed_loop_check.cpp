#include "calibration/closed_loop_check.hpp"

#include <cmath>

namespace agentsim::calib {

ClosedLoopCheck closed_loop_check(const MeasuredRun& r) {
  static const std::size_t out = measured_metric_index("output_tok_s_per_gpu");
  static const std::size_t ttft = measured_metric_index("ttft_s_median");
  static const std::size_t tpot = measured_metric_index("tpot_s_median");
  const double o = r.metrics[out], t = r.metrics[ttft], p = r.metrics[tpot];
  if (r.trtllm_bench || !(o > 0) || !(t > 0) || !(p > 0) || r.gpus <= 0 || !(r.concurrency > 0) || r.osl <= 0) {
    return {std::nan(""), false};
  }
  const double osl = static_cast<double>(r.osl);
  const double implied = r.concurrency * osl / (t + (osl - 1) * p);
  const double ratio = o * r.gpus / implied;
  return {ratio, ratio < kClosedLoopSuspectRatio};
}

}  // namespace agentsim::calib
