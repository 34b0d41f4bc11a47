#pragma once
// The hardware catalog's entries decoded strictly from YAML
// (hwmodels/catalog/accelerators/*.yaml, hwmodels/catalog/systems/*.yaml): every error is at
// file:line:key. experiments/config/catalog.cpp loads the catalog through these.
#include "hwmodels/accelerator.hpp"
#include "hwmodels/dtype.hpp"
#include "hwmodels/system.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/yaml_node.hpp"

namespace agentsim::hw {

Accelerator decode_accelerator(const core::YamlNode& n);
System decode_system(const core::YamlNode& n, const core::Registry<Accelerator>& accelerators);
// One of fp4, fp8, bf16, fp32.
DType decode_dtype(const core::YamlNode& n);

}  // namespace agentsim::hw
