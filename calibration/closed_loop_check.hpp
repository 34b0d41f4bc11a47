#pragma once
// Whether a measured run's throughput agrees with its own latencies. Each of `concurrency`
// closed-loop clients finishes a request every TTFT + (OSL - 1) x TPOT (the row's medians), so
// concurrency x OSL over that is the output rate its latencies imply; a run whose measured
// output rate falls well short of it held a stall its medians do not show (a warm-up compile,
// a hung request) inside the window its throughput was averaged over.
#include "calibration/measured_runs.hpp"

namespace agentsim::calib {

// Below this ratio a row is flagged: the gap in the shipped rows' distribution (0.72 to 0.82).
inline constexpr double kClosedLoopSuspectRatio = 0.75;

struct ClosedLoopCheck {
  double ratio;  // measured output tok/s (all GPUs) / the rate the latencies imply; NaN: not checkable
  bool suspect;  // ratio < kClosedLoopSuspectRatio
};

// NaN (never suspect) without output tok/s per GPU, median TTFT and median TPOT, or for a run
// that queued every request at once (`trtllm_bench`): it has no closed loop.
ClosedLoopCheck closed_loop_check(const MeasuredRun& r);

}  // namespace agentsim::calib
