#pragma once
// Roofline time of a piece of work on one accelerator, as a breakdown.
#include "hwmodels/accelerator.hpp"
#include "hwmodels/efficiency.hpp"
#include "hwmodels/efficiency_table.hpp"

namespace agentsim::hw {

struct RooflineTime {
  double compute_s = 0;  // flops / (peak * e_compute)
  double memory_s = 0;   // bytes / (bw * e_memory)
  // The bound: max(compute_s, memory_s).
  double bound_s() const { return compute_s > memory_s ? compute_s : memory_s; }
  bool compute_bound() const { return compute_s >= memory_s; }
};

// Work of `flops` FLOPs in math dtype `math` and `bytes` of HBM traffic.
RooflineTime roofline(const Accelerator& acc, DType math, double flops, double bytes,
                      const Efficiency& eff);

// One kernel: roofline plus the launch floor, which bounds it from below.
struct OpTime {
  double compute_s = 0;
  double memory_s = 0;
  double floor_s = 0;  // the accelerator's launch floor
  // max(compute_s, memory_s, floor_s): a kernel never finishes faster than its launch.
  double total_s() const;
  bool compute_bound() const { return compute_s >= memory_s; }
};

// Time of one op with size-dependent efficiencies from `table`.
OpTime op_time(const Accelerator& acc, DType math, double flops, double bytes, const EfficiencyTable& table);

}  // namespace agentsim::hw
