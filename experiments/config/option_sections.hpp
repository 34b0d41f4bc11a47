#pragma once
// Every documented section of the experiment YAML with its option declarations:
// what `agentsim describe` prints (the strict decoders read the same tables).
#include <span>
#include <string>
#include <vector>

#include "sim/core/yaml_node.hpp"

namespace agentsim::exp {

struct OptionSection {
  std::string name;   // key path, "" for the top level
  std::string help;
  std::span<const core::OptionSpec> options;
};

const std::vector<OptionSection>& option_sections();
// The section's table, aligned; an unknown name is a core::Error with "did you mean".
std::string describe_section(const std::string& name);
// All sections, one after the other.
std::string describe_all();

}  // namespace agentsim::exp
