#pragma once
// Helpers the measured-run adapters share: a row being mapped, its skip reason,
// and typed optional fields.
#include <cmath>
#include <limits>
#include <string>

#include "calibration/measured_names.hpp"
#include "calibration/measured_sources.hpp"
#include "sim/core/csv_reader.hpp"

namespace agentsim::calib::detail {

inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A positive number, NaN when the field is empty; a malformed or non-positive value is
// a skip reason (`why` set), never a silent NaN.
inline double optional_positive(const core::CsvReader& csv, std::size_t col, double scale, std::string& why) {
  const std::string& f = csv.field(col);
  if (f.empty()) return kNaN;
  char* end = nullptr;
  const double v = std::strtod(f.c_str(), &end);
  if (end != f.c_str() + f.size() || !std::isfinite(v) || !(v > 0)) {
    if (why.empty()) why = "column " + csv.header()[col] + ": '" + f + "' is not a positive number";
    return kNaN;
  }
  return v * scale;
}

// A positive integer field, or a reason.
inline long long required_count(const core::CsvReader& csv, std::size_t col, std::string& why) {
  const std::string& f = csv.field(col);
  char* end = nullptr;
  const long long v = f.empty() ? 0 : std::strtoll(f.c_str(), &end, 10);
  if (f.empty() || end != f.c_str() + f.size() || v < 1 || v > 1'000'000'000) {
    if (why.empty()) why = "column " + csv.header()[col] + (f.empty() ? ": empty" : ": '" + f + "' is not a positive integer");
    return 0;
  }
  return v;
}

// Takes a mapping's value, or records its reason (the first reason wins).
inline std::string take(const Mapped& m, std::string& why) {
  if (!m.ok() && why.empty()) why = m.reason;
  return m.value;
}

inline bool any_metric(const MeasuredRun& r) {
  for (double v : r.metrics) {
    if (!std::isnan(v)) return true;
  }
  return false;
}

// Files the row as mapped or skipped.
inline void file_row(MeasuredFile& out, MeasuredRun r, std::string why) {
  if (why.empty() && !any_metric(r)) why = "no metric reported";
  if (why.empty()) {
    out.runs.push_back(std::move(r));
  } else {
    out.skipped.push_back(SkippedRow{r.file, r.line, r.id, std::move(why)});
  }
}

inline MeasuredRun new_row(const core::CsvReader& csv, std::string id) {
  MeasuredRun r;
  r.file = csv.file();
  r.line = csv.line();
  r.id = std::move(id);
  for (double& m : r.metrics) m = kNaN;
  return r;
}

inline std::size_t metric(std::string_view name) { return measured_metric_index(name); }

}  // namespace agentsim::calib::detail
