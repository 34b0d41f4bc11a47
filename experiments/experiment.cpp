#include "experiments/experiment.hpp"

#include <array>
#include <cstdint>

#include "experiments/catalog.hpp"
#include "experiments/decode_helpers.hpp"

namespace agentsim::exp {

namespace {

constexpr std::array kTopKeys = {
    OptionSpec{"name", "string", "", "experiment name"},
    OptionSpec{"seed", "integer", "1", "master seed; every random stream derives from it"},
    OptionSpec{"model", "string", "", "model catalog name"},
    OptionSpec{"system", "string", "", "system catalog name"},
    OptionSpec{"deployment", "map", "", "parallel layout"},
    OptionSpec{"serving", "map", "", "engine options"},
    OptionSpec{"workload", "map", "", "sessions and replay"},
};

}  // namespace

Experiment load_experiment(const std::string& path, const std::string& root) {
  const YamlNode doc = YamlNode::load_file(path);
  doc.check_keys(kTopKeys);
  const Catalog catalog = load_catalog(root);

  Experiment e;
  e.file = path;
  e.name = doc.at("name").as_string();
  e.seed = static_cast<std::uint64_t>(bounded_int(doc, "seed", 1, 0, INT64_MAX));
  const YamlNode model = doc.at("model");
  e.model = catalog.models.get(model.as_string(), model.where());
  const YamlNode system = doc.at("system");
  e.system = catalog.systems.get(system.as_string(), system.where());
  const auto dep = doc.find("deployment");
  e.deployment = decode_deployment(dep ? &*dep : nullptr, e.model, e.system);
  const auto srv = doc.find("serving");
  e.serving = decode_serving(srv ? &*srv : nullptr);
  e.workload = decode_workload(doc.at("workload"), path);
  return e;
}

}  // namespace agentsim::exp
