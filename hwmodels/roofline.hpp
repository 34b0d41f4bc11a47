#pragma once
// The roofline of one op on one accelerator: the step cost prices every op
// with it (sim/serving/step_coster) and the calibration cross-check predicts
// measured kernels with it.
#include <algorithm>

namespace agentsim::hw {

struct OpTime {
  double compute_s = 0;  // flops / (peak x e_compute) x load
  double memory_s = 0;   // bytes / (HBM bandwidth x e_memory) x load
  double floor_s = 0;    // launch floors of the op's kernels
  // A kernel never finishes faster than its launch.
  double time_s() const { return std::max({compute_s, memory_s, floor_s}); }
  bool compute_bound() const { return compute_s >= memory_s; }
};

// `flops` of math at `peak_flops` x `e_compute` and `bytes` of HBM traffic at
// `hbm_Bps` x `e_memory`, each times `load` (the busiest rank's share over the
// mean), bounded below by `floor_s`. No FLOPs (bytes): no compute (memory) time,
// and the peak (bandwidth) is not read.
inline OpTime op_time(double flops, double peak_flops, double e_compute, double bytes, double hbm_Bps,
                      double e_memory, double floor_s, double load = 1.0) {
  OpTime t;
  if (flops > 0) t.compute_s = flops / (peak_flops * e_compute) * load;
  if (bytes > 0) t.memory_s = bytes / (hbm_Bps * e_memory) * load;
  t.floor_s = floor_s;
  return t;
}

}  // namespace agentsim::hw
