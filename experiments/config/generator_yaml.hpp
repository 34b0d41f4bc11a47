#pragma once
// The generator config as YAML (written by `agentsim trace fit`, read by
// experiments' `workload.generator`), decoded strictly.
#include <span>
#include <string>
#include <vector>

#include "sim/core/yaml_node.hpp"
#include "workloads/sessions/session_generator.hpp"

namespace agentsim::exp {

std::string generator_yaml(const wl::GeneratorConfig& cfg, const std::string& comment);
wl::GeneratorConfig decode_generator(const core::YamlNode& node);
// `node`'s keys over `base` (a profile's parameters, overridden by an experiment's).
wl::GeneratorConfig decode_generator(const core::YamlNode& node, const wl::GeneratorConfig& base);
// The generator's keys, for `agentsim describe`.
std::span<const core::OptionSpec> generator_options();

// The named session profiles (workloads/catalog/profiles/<name>.yaml), sorted.
std::vector<std::string> profile_names();
// A profile's generator parameters, decoded strictly; an unknown name is an Error listing the valid ones.
wl::GeneratorConfig load_profile(const std::string& name);
wl::GeneratorConfig load_generator_yaml(const std::string& path);

}  // namespace agentsim::exp
