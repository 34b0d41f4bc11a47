#pragma once
// Hardware test fixtures: copies of the catalog entries the hwmodels (and higher lower-layer)
// tests use, in tests/hwmodels/fixtures/{accelerators,systems}/*.yaml, each file naming the
// catalog file and commit it was copied from. They are decoded by hwmodels' own decoder, so
// editing a catalog value changes no test that reads them.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "hwmodels/hardware_decoder.hpp"
#include "sim/core/registry.hpp"
#include "sim/core/yaml_node.hpp"

namespace agentsim::hw::test {

struct HwFixtures {
  core::Registry<Accelerator> accelerators{"accelerator"};
  core::Registry<System> systems{"system"};
};

// The *.yaml files of `dir`, in name order.
inline std::vector<std::filesystem::path> yaml_fixture_files(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> out;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.is_regular_file() && e.path().extension() == ".yaml") out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline const HwFixtures& hw_fixtures() {
  static const HwFixtures f = [] {
    HwFixtures out;
    const std::filesystem::path dir = std::filesystem::path(AGENTSIM_SOURCE_DIR) / "tests/hwmodels/fixtures";
    for (const auto& p : yaml_fixture_files(dir / "accelerators")) {
      Accelerator a = decode_accelerator(core::YamlNode::load_file(p.string()));
      out.accelerators.add(a.name, a);
    }
    for (const auto& p : yaml_fixture_files(dir / "systems")) {
      System s = decode_system(core::YamlNode::load_file(p.string()), out.accelerators);
      out.systems.add(s.name, s);
    }
    return out;
  }();
  return f;
}

inline const System& system(const std::string& name) { return hw_fixtures().systems.get(name); }
inline const Accelerator& accelerator(const std::string& name) { return hw_fixtures().accelerators.get(name); }

}  // namespace agentsim::hw::test
