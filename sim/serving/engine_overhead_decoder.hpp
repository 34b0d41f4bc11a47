#pragma once
// The engines catalog (experiments/catalog/engines.yaml) decoded strictly from YAML: every
// engine of kEngineNames, each key required; every error is at file:line:key.
#include <array>

#include "sim/core/yaml_node.hpp"
#include "sim/serving/engine_overhead.hpp"

namespace agentsim::serving {

std::array<EngineOverhead, kEngineCount> decode_engines(const core::YamlNode& n);

}  // namespace agentsim::serving
