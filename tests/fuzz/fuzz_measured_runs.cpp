// libFuzzer target: the measured-run CSV (experiments/validation/measured_runs.csv format).
// Any input must read or fail with a core::Error.
#include <cmath>
#include <cstdlib>

#include "calibration/measured_runs.hpp"
#include "sim/core/error.hpp"
#include "tests/fuzz/fuzz_input.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(agentsim::fuzz::text_of(data, size));
  try {
    for (const auto& r : agentsim::calib::read_measured_runs(in, "measured_runs.csv")) {
      // The reader promises positive, finite counts and metrics (NaN = absent).
      if (r.gpus < 1 || r.isl < 1 || r.osl < 1 || !(r.concurrency >= 1) || !std::isfinite(r.concurrency)) std::abort();
      for (double m : r.metrics) {
        if (!std::isnan(m) && !(m > 0 && std::isfinite(m))) std::abort();
      }
    }
  } catch (const agentsim::core::Error&) {
  }
  return 0;
}
