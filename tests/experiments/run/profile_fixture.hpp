#pragma once
// A calibration profile for step-cost tests: GEMM tables at 35% of the
// datasheet BF16 peak (989 TFLOP/s), measured for m in 1..256 (larger m is
// extrapolated), and HBM reads at 50% of 4.8 TB/s (2.4 TB/s as the table's own
// peak x efficiency 1).
#include <cmath>

#include "calibration/efficiency_profile.hpp"

namespace agentsim::serving::test {

inline calib::EfficiencyProfile gemm35_mem50_profile() {
  calib::EfficiencyProfile p;
  p.device = "test";
  p.source = "fixture";
  calib::FittedTable g;
  g.name = "gemm_bf16";
  g.family = "gemm";
  g.dtype = "bf16";
  g.peak = 989e12;
  g.log_constant = std::log(0.35);
  g.axes = {{"m", 1, {1, 256}, {0, 0}}};
  p.tables["gemm_bf16"] = g;
  calib::FittedTable mem;
  mem.name = "mem_read";
  mem.family = "mem_read";
  mem.quantity = calib::Quantity::kMemory;
  mem.peak = 2.4e12;
  mem.log_constant = 0;
  mem.axes = {{"size_bytes", 0, {1, 1e12}, {0, 0}}};
  p.tables["mem_read"] = mem;
  return p;
}

}  // namespace agentsim::serving::test
