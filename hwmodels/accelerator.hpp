#pragma once
// One accelerator's datasheet figures (dense peaks, HBM, power), in SI units.
#include <map>
#include <string>

#include "hwmodels/dtype.hpp"

namespace agentsim::hw {

struct Accelerator {
  std::string name;                        // catalog name, e.g. "h200"
  std::map<DType, double> peak_flops;      // dense FLOP/s per math dtype
  double hbm_bytes = 0;                    // HBM capacity
  double hbm_bw_Bps = 0;                   // HBM bandwidth
  double launch_floor_s = 0;               // minimum time of one kernel launch
  double l2_bytes = 0;                     // last-level on-chip cache
  double tdp_w = 0;                        // board power limit
  double idle_w = 0;                       // power with nothing running
  double scale_up_bw_Bps = 0;              // scale-up fabric (NVLink, IF), per direction
  double scale_up_latency_s = 0;           // one hop through the scale-up fabric

  // Dense peak for `d`; throws core::Error if the accelerator has no such math.
  double peak_flops_for(DType d) const;
};

}  // namespace agentsim::hw
