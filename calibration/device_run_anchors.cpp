#include "calibration/device_run_anchors.hpp"

#include <filesystem>

#include "calibration/kernel_family.hpp"
#include "sim/core/error.hpp"
#include "sim/core/yaml_node.hpp"

namespace agentsim::calib {

std::map<std::string, std::vector<std::string>> load_device_run_anchors(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(dir) / "anchors.yaml";
  std::map<std::string, std::vector<std::string>> out;
  if (!fs::exists(path)) return out;
  const core::YamlNode root = core::YamlNode::load_file(path.string());
  for (const std::string& file : root.keys()) {
    const core::YamlNode list = root.at(file);
    if (fs::path(file).extension() != ".h5" || !fs::is_regular_file(fs::path(dir) / file))
      throw list.error("not a calibration file (*.h5) in " + dir);
    std::vector<std::string>& families = out[file];
    for (const core::YamlNode& f : list.items()) {
      try {
        families.push_back(kernel_family(f.as_string()).name);
      } catch (const core::Error& e) {
        throw f.error(e.detail());
      }
    }
  }
  return out;
}

}  // namespace agentsim::calib
