#include "experiments/config/what_if.hpp"

#include "experiments/config/experiment.hpp"

#include <array>
#include <filesystem>
#include <map>
#include <optional>

#include "hwmodels/hardware_decoder.hpp"
#include "sim/core/suggest.hpp"
#include "workloads/model/model_decoder.hpp"

namespace agentsim::exp {
using core::OptionSpec;
using core::YamlNode;
namespace fs = std::filesystem;

namespace {

constexpr std::array kWhatIfKeys = {
    OptionSpec{"<catalog entry>", "map", "",
               "an accelerator, system or model name -> the fields to override, nested as in its catalog file"},
};

// Overlays `over` onto `base`, recursing into maps present in both.
void overlay(YAML::Node base, const YamlNode& over) {
  if (!over.is_map()) throw over.error("expected a mapping of catalog fields");
  for (const auto& key : over.keys()) {
    const YamlNode child = over.at(key);
    if (base[key].IsDefined() && base[key].IsMap() && child.is_map()) {
      overlay(base[key], child);
    } else {
      base[key] = YAML::Clone(child.raw());
    }
  }
}

// Decodes an overridden entry; an error in an overriding value is reported where the
// experiment gave it (file, line, what_if.<entry>.<key>), not at the catalog file.
template <typename Decode>
auto decode_overridden(const YamlNode& over, Decode decode) {
  try {
    return decode();
  } catch (const core::Error& e) {
    const std::string& key = e.where().key_path;
    std::optional<YamlNode> node = over;
    std::size_t start = 0;
    while (node && start < key.size()) {
      const std::size_t dot = key.find('.', start);
      const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      node = node->is_map() ? node->find(part) : std::nullopt;
      start = dot == std::string::npos ? key.size() : dot + 1;
    }
    if (key.empty() || !node) throw;
    throw core::Error(node->where(), e.detail());
  }
}

YamlNode overridden(const fs::path& file, const YamlNode& over) {
  const YamlNode original = YamlNode::load_file(file.string());
  YAML::Node copy = YAML::Clone(original.raw());
  overlay(copy, over);
  return YamlNode(copy, file.string(), "");
}

// A model card's stated KV bytes per token cross-check its own precision: a what_if that changes
// the precision drops them (the BF16 ones stay), unless it states them again.
YamlNode overridden_model(const fs::path& file, const YamlNode& over) {
  const YamlNode original = YamlNode::load_file(file.string());
  YAML::Node copy = YAML::Clone(original.raw());
  if (over.is_map() && over.find("precision") && copy["kv_cache"].IsMap()) {
    for (const char* key : {"bytes_per_token", "bytes_per_token_all_layers"}) copy["kv_cache"].remove(key);
  }
  overlay(copy, over);
  return YamlNode(copy, file.string(), "");
}

}  // namespace

std::span<const OptionSpec> what_if_options() { return kWhatIfKeys; }

void apply_what_if(const YamlNode& what_if, const std::string& root, Catalog& catalog) {
  if (!what_if.is_map()) throw what_if.error("expected a mapping of catalog entry name -> overrides");
  const fs::path r(root);
  std::map<std::string, YamlNode> accels, systems, models;
  for (const auto& name : what_if.keys()) {
    const YamlNode over = what_if.at(name);
    if (catalog.accelerators.contains(name)) {
      accels.emplace(name, over);
    } else if (catalog.systems.contains(name)) {
      systems.emplace(name, over);
    } else if (catalog.models.contains(name)) {
      models.emplace(name, over);
    } else {
      std::vector<std::string> all = catalog.accelerators.names();
      for (const auto& n : catalog.systems.names()) all.push_back(n);
      for (const auto& n : catalog.models.names()) all.push_back(n);
      std::string msg = "unknown catalog entry '" + name + "'";
      const std::string guess = core::closest_match(name, all);
      if (!guess.empty()) msg += " (did you mean '" + guess + "'?)";
      throw core::Error(core::SourceLocation{over.file(), over.where().line, "what_if." + name},
                        msg + "; keys are accelerator, system or model names");
    }
  }
  if (!accels.empty()) {
    core::Registry<hw::Accelerator> next{"accelerator"};
    for (const auto& [name, a] : catalog.accelerators.entries()) {
      auto it = accels.find(name);
      // A path, not the structured binding, goes into the lambda (clang 14 cannot capture bindings).
      const fs::path file = r / "hwmodels/catalog/accelerators" / (name + ".yaml");
      next.add(name, it == accels.end() ? a
                                        : decode_overridden(it->second, [&] {
                                            return hw::decode_accelerator(overridden(file, it->second));
                                          }));
    }
    catalog.accelerators = next;
  }
  if (!accels.empty() || !systems.empty()) {
    // Systems embed their accelerator, so all are re-decoded when one changed.
    core::Registry<hw::System> next{"system"};
    for (const auto& [name, s] : catalog.systems.entries()) {
      const fs::path file = r / "hwmodels/catalog/systems" / (name + ".yaml");
      auto it = systems.find(name);
      if (it != systems.end()) {
        next.add(name, decode_overridden(it->second, [&] {
                         return hw::decode_system(overridden(file, it->second), catalog.accelerators);
                       }));
      } else if (!accels.empty()) {
        next.add(name, hw::decode_system(YamlNode::load_file(file.string()), catalog.accelerators));
      } else {
        next.add(name, s);
      }
    }
    catalog.systems = next;
  }
  if (!models.empty()) {
    core::Registry<wl::ModelSpec> next{"model"};
    for (const auto& [name, m] : catalog.models.entries()) {
      auto it = models.find(name);
      const fs::path file = r / "workloads/catalog/models" / (name + ".yaml");
      next.add(name, it == models.end()
                         ? m
                         : decode_overridden(it->second, [&] { return wl::decode_model(overridden_model(file, it->second)); }));
    }
    catalog.models = next;
  }
}

}  // namespace agentsim::exp
