#pragma once
// The `serving` section: engine options of every replica.
#include <span>

#include "experiments/yaml_node.hpp"
#include "hwmodels/efficiency.hpp"

namespace agentsim::exp {

struct ServingConfig {
  long long max_batch_tokens = 8192;
  int max_sequences = 256;
  double step_overhead_s = 0;
  double memory_fraction = 0.9;
  hw::Efficiency efficiency;
};

// Decodes `serving` (absent = defaults).
// The declarations of the keys above, for `agentsim describe`.
std::span<const OptionSpec> serving_options();
std::span<const OptionSpec> efficiency_options();

ServingConfig decode_serving(const YamlNode* srv);

}  // namespace agentsim::exp
