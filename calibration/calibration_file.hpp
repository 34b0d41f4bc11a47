#pragma once
// The HDF5 calibration file: root string attributes (device, driver, clocks,
// date, command_line, backend) and one compound dataset per kernel family whose
// members are the table's columns (float64), with string attributes per dataset.
#include <string>

#include "calibration/measurement_table.hpp"

namespace agentsim::calib {

// Writes atomically (temporary file in the same folder, then rename); throws
// core::Error naming the path on failure.
void write_calibration_file(const std::string& path, const CalibrationFile& file);

// Reads and validates: the backend's required families present, each known
// family's required columns present and numeric. Errors name file and dataset.
CalibrationFile read_calibration_file(const std::string& path);

}  // namespace agentsim::calib
