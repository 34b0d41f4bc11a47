#pragma once
// The generator config as YAML (written by `agentsim trace fit`, read by
// experiments' `workload.generator`), decoded strictly.
#include <string>

#include "sim/core/yaml_node.hpp"
#include "workloads/sessions/session_generator.hpp"

namespace agentsim::exp {

std::string generator_yaml(const wl::GeneratorConfig& cfg, const std::string& comment);
wl::GeneratorConfig decode_generator(const core::YamlNode& node);
wl::GeneratorConfig load_generator_yaml(const std::string& path);

}  // namespace agentsim::exp
