#include "hwmodels/roofline.hpp"

#include <algorithm>

namespace agentsim::hw {

RooflineTime roofline(const Accelerator& acc, DType math, double flops, double bytes,
                      const Efficiency& eff) {
  RooflineTime t;
  t.compute_s = flops / (acc.peak_flops_for(math) * eff.compute);
  t.memory_s = bytes / (acc.hbm_bw_Bps * eff.memory);
  return t;
}

double OpTime::total_s() const { return std::max({compute_s, memory_s, floor_s}); }

OpTime op_time(const Accelerator& acc, DType math, double flops, double bytes, const EfficiencyTable& table) {
  OpTime t;
  t.compute_s = flops > 0 ? flops / (acc.peak_flops_for(math) * table.compute(math, flops)) : 0.0;
  t.memory_s = bytes > 0 ? bytes / (acc.hbm_bw_Bps * table.memory(bytes)) : 0.0;
  t.floor_s = acc.launch_floor_s;
  return t;
}

}  // namespace agentsim::hw
