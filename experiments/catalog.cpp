#include "experiments/catalog.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "experiments/yaml_node.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;

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
    hw::Accelerator a = decode_accelerator(n);
    check_name_matches_file(n, a.name);
    c.accelerators.add(a.name, a);
  }
  for (const auto& f : yaml_files(r / "hwmodels/catalog/systems")) {
    const YamlNode n = YamlNode::load_file(f.string());
    hw::System s = decode_system(n, c.accelerators);
    check_name_matches_file(n, s.name);
    c.systems.add(s.name, s);
  }
  for (const auto& f : yaml_files(r / "workloads/catalog/models")) {
    const YamlNode n = YamlNode::load_file(f.string());
    wl::ModelSpec m = decode_model(n);
    check_name_matches_file(n, m.name);
    c.models.add(m.name, m);
  }
  c.engines = decode_engines(YamlNode::load_file((r / "experiments/catalog/engines.yaml").string()));
  return c;
}

std::array<serving::EngineOverhead, 3> decode_engines(const YamlNode& n) {
  static constexpr std::array kTop = {OptionSpec{"engines", "map", "", "one entry per serving engine"}};
  static constexpr std::array kKeys = {
      OptionSpec{"fixed", "time", "", "host time per eager step"},
      OptionSpec{"graph_fixed", "time", "", "host time per decode-only step replayed from a graph"},
      OptionSpec{"graph_max_sequences", "integer", "", "largest decode batch with a captured graph (0: none)"},
      OptionSpec{"per_sequence", "time", "", "host time per sequence in the batch"},
      OptionSpec{"per_token", "time", "", "host time per new token"},
  };
  n.check_keys(kTop);
  const YamlNode engines = n.at("engines");
  std::vector<OptionSpec> names;
  for (const auto& [name, e] : serving::kEngineNames) names.push_back(OptionSpec{name, "map", "", ""});
  engines.check_keys(names);
  std::array<serving::EngineOverhead, 3> out{};
  for (const auto& [name, e] : serving::kEngineNames) {
    const YamlNode x = engines.at(name);
    x.check_keys(kKeys);
    serving::EngineOverhead& o = out[static_cast<std::size_t>(e)];
    const auto time = [&](std::string_view key) {
      const double v = x.at(key).as_quantity(core::Dimension::kTime);
      if (!(v >= 0 && v < 1)) throw x.at(key).error("expected a time in [0, 1s)");
      return v;
    };
    o.fixed_s = time("fixed");
    o.graph_fixed_s = time("graph_fixed");
    o.per_sequence_s = time("per_sequence");
    o.per_token_s = time("per_token");
    const long long g = x.at("graph_max_sequences").as_integer();
    if (g < 0 || g > (1 << 20)) throw x.at("graph_max_sequences").error("expected an integer in [0, 1048576]");
    o.graph_max_sequences = static_cast<int>(g);
  }
  return out;
}

}  // namespace agentsim::exp
