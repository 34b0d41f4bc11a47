#pragma once
// One kernel family's measurements: named numeric columns of equal length (one
// row per measured shape) plus string attributes, as stored in a calibration file.
#include <map>
#include <string>
#include <vector>

namespace agentsim::calib {

struct MeasurementTable {
  std::string family;                                 // dataset name, e.g. "gemm"
  std::vector<std::string> column_order;              // columns in file order
  std::map<std::string, std::vector<double>> columns; // column name -> values
  std::map<std::string, std::string> attributes;      // e.g. "monotone" -> "m:+,n:+"

  std::size_t rows() const;
  // Appends one row; `values` must name exactly the table's columns (the first
  // row defines them, in the given order).
  void add_row(const std::vector<std::pair<std::string, double>>& values);
  // The column's values; throws core::Error naming the family if absent.
  const std::vector<double>& column(const std::string& name) const;
};

// A whole calibration file: device attributes and one table per family.
struct CalibrationFile {
  std::string path;                               // where it was read from (empty if in memory)
  std::map<std::string, std::string> attributes;  // device, driver, clocks, date, command_line, backend
  std::map<std::string, MeasurementTable> tables; // family -> table
};

}  // namespace agentsim::calib
