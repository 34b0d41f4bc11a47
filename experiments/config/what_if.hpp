#pragma once
// `what_if`: overrides of catalog fields, keyed by catalog entry name
// (accelerator, system or model), applied to the catalog's YAML before decoding,
// so the strict decoders validate the overridden values as if they were in the file.
#include <span>
#include <string>

#include "experiments/config/catalog.hpp"
#include "sim/core/yaml_node.hpp"

namespace agentsim::exp {

// Replaces the overridden entries of `catalog` (systems using an overridden
// accelerator are re-decoded). Unknown entry names are errors with "did you mean".
void apply_what_if(const core::YamlNode& what_if, const std::string& root, Catalog& catalog);

}  // namespace agentsim::exp
