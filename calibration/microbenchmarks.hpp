#pragma once
// One interface over the microbenchmark backends (CPU everywhere, CUDA where
// built): each measures every kernel family it supports on its device and
// returns a calibration file ready to write.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "calibration/measurement_table.hpp"

namespace agentsim::calib {

struct RunOptions {
  bool quick = false;                                 // smaller grids, shorter timings (CI)
  std::string command_line;                           // recorded as a root attribute
  std::function<void(const std::string&)> progress;   // one line per family; may be empty
};

class Microbenchmarks {
 public:
  virtual ~Microbenchmarks() = default;
  virtual std::string backend() const = 0;
  // Runs every family; throws core::Error when the device is unavailable.
  virtual CalibrationFile run(const RunOptions& options) = 0;
};

// Backends compiled into this build, in a fixed order ("cpu", then "cuda" if built).
std::vector<std::string> available_backends();
// The named backend; throws core::Error listing the available ones.
std::unique_ptr<Microbenchmarks> make_microbenchmarks(const std::string& backend);

// Current UTC time as "YYYY-MM-DDTHH:MM:SSZ" (the calibration file's date).
std::string utc_timestamp();

}  // namespace agentsim::calib
