// libFuzzer target: the YAML efficiency profile reader (calib::parse_profile),
// then a lookup in every table it accepted. Any input must decode or fail with a core::Error.
#include <cmath>
#include <cstdlib>
#include <vector>

#include "calibration/efficiency_profile.hpp"
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  try {
    const auto p = agentsim::calib::parse_profile(agentsim::fuzz::text_of(data, size), "profile.yaml");
    (void)agentsim::calib::to_yaml(p);
    // An accepted table must answer lookups inside and outside its range with a finite value.
    for (const auto& [name, table] : p.tables) {
      for (double x : {1e-3, 1.0, 4096.0, 1e12}) {
        const std::vector<double> shape(table.axes.size(), x);
        const auto found = table.lookup(shape);
        if (!std::isfinite(found.value) || found.value < 0) std::abort();
      }
    }
  } catch (const agentsim::core::Error&) {
  }
  return 0;
}
