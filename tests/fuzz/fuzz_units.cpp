// libFuzzer target: unit strings (core::parse_quantity for every dimension, the
// format/parse round trip, and trace timestamps). An accepted quantity must be a
// finite, non-negative SI value; anything else must be a core::Error.
#include <cmath>
#include <cstdlib>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "tests/fuzz/fuzz_input.hpp"
#include "workloads/sessions/azure_csv.hpp"

using agentsim::core::Dimension;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = agentsim::fuzz::text_of(data, size);
  for (Dimension d : {Dimension::kTime, Dimension::kBytes, Dimension::kBandwidth, Dimension::kPower,
                      Dimension::kFlops, Dimension::kFlopRate}) {
    try {
      const double v = agentsim::core::parse_quantity(text, d);
      if (!std::isfinite(v) || v < 0) std::abort();
      const std::string shown = agentsim::core::format_quantity(v, d);
      const double back = agentsim::core::parse_quantity(shown, d);
      // format_quantity keeps 4 significant digits.
      if (v >= 1e-9 && !(std::fabs(back - v) <= 1e-3 * v)) std::abort();
    } catch (const agentsim::core::Error&) {
    }
  }
  double t = 0;
  if (agentsim::wl::parse_timestamp_s(text, t) && !std::isfinite(t)) std::abort();
  return 0;
}
