#include "hwmodels/roofline.hpp"

namespace agentsim::hw {

RooflineTime roofline(const Accelerator& acc, DType math, double flops, double bytes,
                      const Efficiency& eff) {
  RooflineTime t;
  t.compute_s = flops / (acc.peak_flops_for(math) * eff.compute);
  t.memory_s = bytes / (acc.hbm_bw_Bps * eff.memory);
  return t;
}

}  // namespace agentsim::hw
