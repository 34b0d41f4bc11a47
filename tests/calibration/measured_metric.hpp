#pragma once
// A measured run's metric by its column name (NaN where the source did not report it).
#include <string_view>

#include "calibration/measured_runs.hpp"

namespace agentsim::calib::test {

inline double metric_of(const MeasuredRun& r, std::string_view name) { return r.metrics[measured_metric_index(name)]; }

}  // namespace agentsim::calib::test
