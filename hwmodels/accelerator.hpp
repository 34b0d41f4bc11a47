#pragma once
// One accelerator's datasheet figures (dense peaks, HBM, power), in SI units.
#include <map>
#include <string>

#include "hwmodels/dtype.hpp"

namespace agentsim::hw {

struct Accelerator {
  std::string name;                        // catalog name, e.g. "h200"
  std::string display_name;                // e.g. "NVIDIA H200 SXM 141GB"
  std::string vendor;                      // "nvidia" | "amd"
  std::string architecture;                // die generation, e.g. "hopper"; empty = this part alone
  std::map<DType, double> peak_flops;      // dense FLOP/s per math dtype
  double hbm_bytes = 0;                    // HBM capacity (usable where published)
  double hbm_bw_Bps = 0;                   // HBM bandwidth
  double launch_floor_s = 0;               // minimum time of one kernel launch
  double l2_bytes = 0;                     // last-level on-chip cache
  double tdp_w = 0;                        // board power limit
  double idle_w = 0;                       // power with nothing running
  // Fraction of (TDP - idle) drawn while memory-bound (decode); in (0, 1].
  double decode_power_fraction = 1.0;
  double scale_up_bw_Bps = 0;              // scale-up fabric (NVLink, IF), per GPU, per direction, all links
  double scale_up_latency_s = 0;           // one hop through the scale-up fabric
  std::string efficiency_profile;          // calibration profile YAML (relative to the catalog root); empty = none
  // Profile tables taken from a same-die sibling's measured table (at this accelerator's own
  // datasheet peak) instead of fitted from this accelerator's rows: table name -> sibling.
  std::map<std::string, std::string> kernel_tables_from;

  // Dense peak for `d`; throws core::Error if the accelerator has no such math.
  double peak_flops_for(DType d) const;
};

}  // namespace agentsim::hw
