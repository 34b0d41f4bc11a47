#pragma once
// Model test fixtures: copies of the model catalog entries the lower-layer tests use, in
// tests/workloads/model/fixtures/*.yaml, each file naming the catalog file and commit it was
// copied from. They are decoded by workloads' own decoder (wl::decode_model), so editing a
// catalog value changes no test that reads them.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/core/registry.hpp"
#include "sim/core/yaml_node.hpp"
#include "workloads/model/model_decoder.hpp"

namespace agentsim::wl::test {

inline const core::Registry<ModelSpec>& model_fixtures() {
  static const core::Registry<ModelSpec> r = [] {
    core::Registry<ModelSpec> out{"model"};
    const std::filesystem::path dir = std::filesystem::path(AGENTSIM_SOURCE_DIR) / "tests/workloads/model/fixtures";
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
      if (e.is_regular_file() && e.path().extension() == ".yaml") files.push_back(e.path());
    }
    std::sort(files.begin(), files.end());
    for (const auto& p : files) {
      ModelSpec m = decode_model(core::YamlNode::load_file(p.string()));
      out.add(m.name, m);
    }
    return out;
  }();
  return r;
}

inline const ModelSpec& model(const std::string& name) { return model_fixtures().get(name); }

}  // namespace agentsim::wl::test
