#include "calibration/device_run_anchors.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>

#include "calibration/kernel_family.hpp"
#include "sim/core/error.hpp"

namespace agentsim::calib {

std::map<std::string, std::vector<std::string>> load_device_run_anchors(const std::string& dir) {
  namespace fs = std::filesystem;
  const fs::path path = fs::path(dir) / "anchors.yaml";
  std::map<std::string, std::vector<std::string>> out;
  if (!fs::exists(path)) return out;
  const std::string shown = path.string();
  auto error = [&](const YAML::Node& n, const std::string& key, const std::string& what) {
    return core::Error(core::SourceLocation{shown, n.Mark().line >= 0 ? n.Mark().line + 1 : 0, key}, what);
  };
  YAML::Node root;
  try {
    root = YAML::LoadFile(shown);
  } catch (const YAML::Exception& e) {
    throw core::Error(core::SourceLocation{shown, e.mark.line >= 0 ? e.mark.line + 1 : 0, ""}, "not valid YAML: " + e.msg);
  }
  if (root.IsNull()) return out;
  if (!root.IsMap()) throw error(root, "", "expected a mapping of calibration file name -> list of kernel families");
  for (const auto& kv : root) {
    if (!kv.first.IsScalar()) throw error(kv.first, "", "expected a calibration file name as the key");
    const std::string file = kv.first.Scalar();
    if (fs::path(file).extension() != ".h5" || !fs::is_regular_file(fs::path(dir) / file))
      throw error(kv.first, file, "not a calibration file (*.h5) in " + dir);
    if (!kv.second.IsSequence()) throw error(kv.second, file, "expected a list of kernel families, e.g. [launch_latency]");
    std::vector<std::string>& families = out[file];
    for (const YAML::Node& f : kv.second) {
      if (!f.IsScalar()) throw error(f, file, "expected a kernel family name");
      try {
        families.push_back(kernel_family(f.Scalar()).name);
      } catch (const core::Error& e) {
        throw error(f, file, e.what());
      }
    }
  }
  return out;
}

}  // namespace agentsim::calib
