#include "calibration/measurement_table.hpp"

#include "sim/core/error.hpp"

namespace agentsim::calib {

std::size_t MeasurementTable::rows() const {
  return columns.empty() ? 0 : columns.begin()->second.size();
}

void MeasurementTable::add_row(const std::vector<std::pair<std::string, double>>& values) {
  if (column_order.empty()) {
    for (const auto& [name, v] : values) column_order.push_back(name);
  }
  if (values.size() != column_order.size())
    throw core::Error(core::SourceLocation{"", 0, family}, "row has " + std::to_string(values.size()) +
                                                               " values for " + std::to_string(column_order.size()) + " columns");
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i].first != column_order[i])
      throw core::Error(core::SourceLocation{"", 0, family}, "row names column '" + values[i].first +
                                                                 "' where '" + column_order[i] + "' was expected");
    columns[values[i].first].push_back(values[i].second);
  }
}

const std::vector<double>& MeasurementTable::column(const std::string& name) const {
  const auto it = columns.find(name);
  if (it == columns.end())
    throw core::Error(core::SourceLocation{"", 0, "/" + family}, "no column '" + name + "'");
  return it->second;
}

}  // namespace agentsim::calib
