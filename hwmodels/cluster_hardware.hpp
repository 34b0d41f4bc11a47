#pragma once
// N identical systems joined by a scale-out fabric.
#include <string>
#include <string_view>

#include "hwmodels/system.hpp"

namespace agentsim::hw {

// rail-optimised: NIC r of every system meets on rail r's leaves;
// fat-tree: NICs fill leaves in system order. Both add a spine layer when
// more than one leaf exists (non-blocking: leaf_radix / 2 spines).
enum class FabricKind { kRailOptimized, kFatTree };
std::string_view to_string(FabricKind k);

struct ScaleOutFabric {
  FabricKind kind = FabricKind::kRailOptimized;
  int leaf_radix = 64;              // ports per leaf switch: half down to NICs, half up to spines
  double switch_latency_s = 0.5e-6; // one switch traversal (added per spine crossing)
};

struct ClusterHardware {
  std::string name;
  System system;
  int systems = 1;
  ScaleOutFabric fabric;
  int accelerators() const { return system.accelerators * systems; }
};

}  // namespace agentsim::hw
