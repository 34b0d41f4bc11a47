#pragma once
// A purchasable unit: N accelerators joined by a scale-up fabric, with hosts
// and a power envelope.
#include <string>

#include "hwmodels/accelerator.hpp"

namespace agentsim::hw {

struct System {
  std::string name;                 // catalog name, e.g. "hgx-h200"
  Accelerator accelerator;
  int accelerators = 0;             // per system
  std::string topology;             // scale-up template: "hgx", "nvl72", "amd-mesh"
  double scale_up_bw_Bps = 0;       // per accelerator, per direction
  double scale_up_latency_s = 0;    // one hop through the scale-up fabric
  double nameplate_w = 0;           // provisioned (maximum input) power
};

}  // namespace agentsim::hw
