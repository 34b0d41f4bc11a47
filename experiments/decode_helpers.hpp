#pragma once
// Small typed readers shared by the catalog decoders.
#include "experiments/yaml_node.hpp"
#include "hwmodels/dtype.hpp"

namespace agentsim::exp {

// A quantity that must be > 0.
double positive(const YamlNode& n, core::Dimension d);
// An integer in [1, 1e9].
int positive_int(const YamlNode& n);
// One of fp4, fp8, bf16, fp32.
hw::DType dtype(const YamlNode& n);

}  // namespace agentsim::exp
