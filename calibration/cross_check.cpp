#include "calibration/cross_check.hpp"

#include <cmath>
#include <cstdio>

#include "calibration/kernel_family.hpp"
#include "hwmodels/roofline.hpp"

namespace agentsim::calib {

double predict_time_s(const MeasurementTable& t, std::size_t row, const FittedTable& et, bool* extrapolated,
                      double floor_s) {
  const KernelFamily& fam = kernel_family(t.family);
  std::vector<double> shape;
  for (const auto& ax : et.axes) shape.push_back(fitted_axis_value(t, ax.name, row));
  const EfficiencyLookup e = et.lookup(shape);
  if (extrapolated) *extrapolated = e.extrapolated;
  // Latency tables: seconds a kernel over the measured kernels (launch floors), or seconds a call.
  if (fam.quantity == Quantity::kLatency) return e.value * (t.columns.contains("kernels") ? t.column("kernels")[row] : 1.0);

  // The roofline the step cost prices every op with (hw::op_time), at the profile's measured peak.
  const double work = t.column(fam.work_column)[row];
  if (et.mem_bw_Bps > 0) {
    // A GEMM table of roofline fractions: the value prices both sides, as the step cost does.
    return hw::op_time(work, et.peak, e.value, gemm_row_bytes(t, row), et.mem_bw_Bps, e.value, floor_s).time_s();
  }
  if (fam.quantity == Quantity::kCompute) return hw::op_time(work, et.peak, e.value, 0, 1, 1, floor_s).time_s();
  return hw::op_time(0, 1, 1, work, et.peak, e.value, floor_s).time_s();
}

std::vector<CrossCheckRow> cross_check(const CalibrationFile& file, const EfficiencyProfile& profile) {
  std::vector<CrossCheckRow> out;
  // A microbenchmark launches its kernels eagerly, back to back, unless the file says it replayed
  // them from a graph (`launch: graph`); published rows were timed however their sources timed
  // them (CUDA graphs, events around many calls): no floor.
  const auto attr = [&](const char* k) {
    const auto it = file.attributes.find(k);
    return it == file.attributes.end() ? std::string() : it->second;
  };
  const double floor_s = attr("backend") == "published" ? 0.0 : profile.launch_floor_s(attr("launch") == "graph");
  for (const auto& [name, et] : profile.tables) {
    const auto it = file.tables.find(et.family);
    if (it == file.tables.end()) continue;
    const MeasurementTable& t = it->second;
    const KernelFamily& fam = kernel_family(t.family);
    CrossCheckRow row;
    row.table = name;
    for (std::size_t r = 0; r < t.rows(); ++r) {
      if (fam.per_dtype && dtype_name(t.column("dtype_bits")[r]) != et.dtype) continue;
      if (t.columns.contains("nodes") &&
          !name.ends_with("_" + std::to_string(static_cast<long long>(t.column("nodes")[r])) + "node"))
        continue;
      bool extrapolated = false;
      const double err = predict_time_s(t, r, et, &extrapolated, floor_s) / t.column("time_s")[r] - 1;
      PredictionError& pe = t.column("held_out")[r] != 0 ? row.held_out : row.fitted;
      pe.mape += std::abs(err);
      pe.mean_error += err;
      pe.max_abs_error = std::max(pe.max_abs_error, std::abs(err));
      pe.points += 1;
      pe.extrapolated += extrapolated ? 1 : 0;
    }
    for (PredictionError* pe : {&row.fitted, &row.held_out}) {
      if (pe->points > 0) {
        pe->mape /= static_cast<double>(pe->points);
        pe->mean_error /= static_cast<double>(pe->points);
      }
    }
    // A derived table without rows here (the import's own file of this accelerator) is not listed.
    if (!et.derived_from.empty() && row.fitted.points + row.held_out.points == 0) continue;
    out.push_back(row);
  }
  return out;
}

std::string cross_check_table(const std::vector<CrossCheckRow>& rows) {
  std::string s;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-22s %6s %9s %9s %9s   %6s %9s %9s %6s\n", "table", "fitted", "MAPE", "bias", "max",
                "held", "MAPE", "max", "extrap");
  s += buf;
  for (const auto& r : rows) {
    std::snprintf(buf, sizeof buf, "%-22s %6zu %8.1f%% %+8.1f%% %8.1f%%   %6zu %8.1f%% %8.1f%% %6zu\n", r.table.c_str(),
                  r.fitted.points, 100 * r.fitted.mape, 100 * r.fitted.mean_error, 100 * r.fitted.max_abs_error,
                  r.held_out.points, 100 * r.held_out.mape, 100 * r.held_out.max_abs_error,
                  r.held_out.extrapolated + r.fitted.extrapolated);
    s += buf;
  }
  return s;
}

}  // namespace agentsim::calib
