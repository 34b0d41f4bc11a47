#pragma once
// A cluster: N catalog systems joined by a scale-out fabric, from YAML:
//   system: hgx-h200      # catalog name
//   count: 4              # systems
//   fabric: {kind: rail-optimized | fat-tree, leaf_radix: 64, switch_latency: "0.5us"}
#include "experiments/yaml_node.hpp"
#include "hwmodels/cluster.hpp"
#include "sim/core/registry.hpp"

namespace agentsim::exp {

hw::Cluster decode_cluster(const YamlNode& n, const core::Registry<hw::System>& systems);

}  // namespace agentsim::exp
