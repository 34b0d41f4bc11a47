#pragma once
// A cluster: N catalog systems joined by a scale-out fabric, from YAML:
//   system: hgx-h200      # catalog name
//   count: 4              # systems
//   fabric: {kind: rail-optimized | fat-tree, leaf_radix: 64, switch_latency: "0.5us"}
#include "hwmodels/cluster_hardware.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/yaml_node.hpp"

namespace agentsim::hw {

ClusterHardware decode_cluster(const core::YamlNode& n, const core::Registry<System>& systems);

}  // namespace agentsim::hw
