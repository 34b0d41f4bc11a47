#include "experiments/config/catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "hwmodels/hardware_decoder.hpp"
#include "sim/core/yaml_node.hpp"
#include "sim/serving/engine_overhead_decoder.hpp"
#include "workloads/model/model_decoder.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;
using core::YamlNode;

namespace {

std::vector<fs::path> yaml_files(const fs::path& dir) {
  std::vector<fs::path> out;
  if (!fs::is_directory(dir)) {
    throw core::Error(core::SourceLocation{dir.string(), 0, ""}, "catalog directory not found");
  }
  for (const auto& e : fs::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

void check_name_matches_file(const YamlNode& n, const std::string& name) {
  const std::string stem = fs::path(n.file()).stem().string();
  if (stem != name) throw n.at("name").error("name '" + name + "' differs from its file name '" + stem + "'");
}

}  // namespace

std::string default_root() { return AGENTSIM_SOURCE_DIR; }

Catalog load_catalog(const std::string& root) {
  Catalog c;
  const fs::path r(root);
  for (const auto& f : yaml_files(r / "hwmodels/catalog/accelerators")) {
    const YamlNode n = YamlNode::load_file(f.string());
    hw::Accelerator a = hw::decode_accelerator(n);
    check_name_matches_file(n, a.name);
    c.accelerators.add(a.name, a);
  }
  for (const auto& f : yaml_files(r / "hwmodels/catalog/systems")) {
    const YamlNode n = YamlNode::load_file(f.string());
    hw::System s = hw::decode_system(n, c.accelerators);
    check_name_matches_file(n, s.name);
    c.systems.add(s.name, s);
  }
  for (const auto& f : yaml_files(r / "workloads/catalog/models")) {
    const YamlNode n = YamlNode::load_file(f.string());
    wl::ModelSpec m = wl::decode_model(n);
    check_name_matches_file(n, m.name);
    c.models.add(m.name, m);
  }
  c.engines = serving::decode_engines(YamlNode::load_file((r / "experiments/catalog/engines.yaml").string()));
  return c;
}

}  // namespace agentsim::exp
