#include "calibration/fitter.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "calibration/kernel_family.hpp"
#include "calibration/monotone.hpp"
#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

std::map<std::string, int> parse_monotone(const MeasurementTable& t, const KernelFamily& fam, const std::string& file_path) {
  std::map<std::string, int> out;
  const auto it = t.attributes.find("monotone");
  if (it == t.attributes.end()) return out;
  std::stringstream ss(it->second);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    const auto colon = item.find(':');
    const std::string axis = item.substr(0, colon);
    const std::string dir = colon == std::string::npos ? "" : item.substr(colon + 1);
    const core::SourceLocation where{file_path, 0, "/" + t.family + "@monotone"};
    const std::vector<std::string>& fitted = fitted_axes(fam);
    if (std::find(fam.axes.begin(), fam.axes.end(), axis) == fam.axes.end() &&
        std::find(fitted.begin(), fitted.end(), axis) == fitted.end())
      throw core::Error(where, "'" + axis + "' is not an axis of " + t.family);
    if (dir != "+" && dir != "-") throw core::Error(where, "direction of '" + axis + "' must be + or -");
    out[axis] = dir == "+" ? 1 : -1;
  }
  return out;
}

// Position of x among ascending knots as (left index, weight of right knot).
std::pair<std::size_t, double> locate(const std::vector<double>& knots, double x) {
  if (knots.size() == 1 || x <= knots.front()) return {0, 0.0};
  if (x >= knots.back()) return {knots.size() - 2, 1.0};
  std::size_t j = 0;
  while (knots[j + 1] < x) ++j;
  const double l0 = std::log2(knots[j]);
  return {j, (std::log2(x) - l0) / (std::log2(knots[j + 1]) - l0)};
}

FitError relative_error(const std::vector<double>& fitted, const std::vector<double>& measured) {
  FitError e;
  double sq = 0;
  for (std::size_t i = 0; i < fitted.size(); ++i) {
    const double r = fitted[i] / measured[i] - 1;
    sq += r * r;
    e.max_rel_error = std::max(e.max_rel_error, std::abs(r));
  }
  e.points = fitted.size();
  e.rms_rel_error = fitted.empty() ? 0 : std::sqrt(sq / static_cast<double>(fitted.size()));
  return e;
}

// What row r of `t` measured, as `fitted` holds it: seconds (latency), achieved / peak, or for
// a GEMM table with an HBM bandwidth the roofline fraction max(flops / peak, bytes / bw) / time.
double row_value(const MeasurementTable& t, const KernelFamily& fam, const FittedTable& fitted, std::size_t r) {
  const double achieved = t.column(fam.achieved_column)[r];
  if (fam.quantity == Quantity::kLatency) return achieved;
  if (fitted.mem_bw_Bps <= 0) return achieved / fitted.peak;
  return std::max(t.column("flops")[r] / fitted.peak, gemm_row_bytes(t, r) / fitted.mem_bw_Bps) / t.column("time_s")[r];
}

// The rows of `t` a table of `dtype_bits` (and `nodes`; 0: all) is fitted on, held out or not.
std::vector<std::size_t> table_rows(const MeasurementTable& t, const KernelFamily& fam, double dtype_bits, double nodes) {
  std::vector<std::size_t> rows;
  for (std::size_t r = 0; r < t.rows(); ++r) {
    if (fam.per_dtype && t.column("dtype_bits")[r] != dtype_bits) continue;
    if (nodes > 0 && t.column("nodes")[r] != nodes) continue;
    rows.push_back(r);
  }
  return rows;
}

// Relative error of `fitted`'s lookups against what `rows` of `t` measured.
FitError error_over(const MeasurementTable& t, const KernelFamily& fam, const FittedTable& fitted,
                    const std::vector<std::size_t>& rows) {
  std::vector<double> predicted, measured;
  for (std::size_t r : rows) {
    std::vector<double> shape;
    for (const auto& ax : fitted.axes) shape.push_back(fitted_axis_value(t, ax.name, r));
    predicted.push_back(fitted.lookup(shape).value);
    measured.push_back(row_value(t, fam, fitted, r));
  }
  return relative_error(predicted, measured);
}

}  // namespace

std::vector<double> measured_values(const MeasurementTable& t, const FittedTable& fitted) {
  const KernelFamily& fam = kernel_family(t.family);
  std::vector<double> v(t.rows());
  for (std::size_t r = 0; r < t.rows(); ++r) v[r] = row_value(t, fam, fitted, r);
  return v;
}

FitError table_error(const MeasurementTable& t, const FittedTable& fitted, double dtype_bits, double nodes) {
  const KernelFamily& fam = kernel_family(t.family);
  return error_over(t, fam, fitted, table_rows(t, fam, dtype_bits, nodes));
}

FittedTable fit_table(const MeasurementTable& t, double dtype_bits, const FitOptions& options,
                          const std::string& file_path, double nodes) {
  const KernelFamily& fam = kernel_family(t.family);
  const core::SourceLocation where{file_path, 0, "/" + t.family};
  const auto& held = t.column("held_out");
  std::vector<std::size_t> train, test;
  for (std::size_t r : table_rows(t, fam, dtype_bits, nodes)) (held[r] != 0 ? test : train).push_back(r);
  if (train.empty()) throw core::Error(where, "no rows to fit (all held out, or no rows of this dtype)");

  FittedTable out;
  out.family = fam.name;
  out.quantity = fam.quantity;
  out.dtype = fam.per_dtype ? dtype_name(dtype_bits) : "";
  out.name = fam.per_dtype ? fam.name + "_" + out.dtype : fam.name;
  const std::string node_suffix = nodes > 0 ? std::to_string(static_cast<long long>(nodes)) + "node" : "";
  if (!node_suffix.empty()) out.name += "_" + node_suffix;
  auto attribute = [&](const std::string& key) {
    const auto it = t.attributes.find(key);
    return it == t.attributes.end() ? std::string() : it->second;
  };
  const auto& achieved = t.column(fam.achieved_column);
  if (fam.quantity == Quantity::kLatency) {
    out.peak_source = "none: values are seconds per operation";
  } else {
    const std::string key = fam.per_dtype ? out.dtype : node_suffix;
    std::string given = key.empty() ? "" : attribute("peak_" + key);
    std::string given_source = key.empty() ? "" : attribute("peak_source_" + key);
    if (given.empty()) {
      given = attribute("peak");
      given_source = attribute("peak_source");
    }
    if (!given.empty()) {
      char* end = nullptr;
      out.peak = std::strtod(given.c_str(), &end);
      if (end == given.c_str() || *end != '\0' || !(out.peak > 0) || !std::isfinite(out.peak))
        throw core::Error(where, "attribute peak '" + given + "' is not a positive number");
      out.peak_source = given_source.empty() ? "table attribute peak" : given_source;
    } else {
      for (std::size_t r : train) out.peak = std::max(out.peak, achieved[r]);
      out.peak_source = "best measured rate among the fitted points of this table";
    }
  }
  out.provenance = attribute(fam.per_dtype ? "provenance_" + out.dtype : "provenance");
  if (out.provenance.empty()) out.provenance = attribute("provenance");
  out.derived_from = attribute("derived_from");
  out.extended_from = attribute("extended_from_" + (fam.per_dtype ? out.dtype : node_suffix));
  out.implementation = attribute("implementation_" + (fam.per_dtype ? out.dtype : node_suffix));
  if (out.implementation.empty()) out.implementation = attribute("implementation");
  // GEMM families with an HBM bandwidth: the roofline fraction, so a small-M GEMM that streams
  // its weights at 60% of HBM bandwidth is priced at 60% on both sides of the roofline.
  const bool gemm = fam.name == "gemm" || fam.name == "grouped_gemm";
  if (const std::string bw = attribute("hbm_bw_Bps"); gemm && !bw.empty()) {
    char* end = nullptr;
    out.mem_bw_Bps = std::strtod(bw.c_str(), &end);
    if (end == bw.c_str() || *end != '\0' || !(out.mem_bw_Bps > 0) || !std::isfinite(out.mem_bw_Bps))
      throw core::Error(where, "attribute hbm_bw_Bps '" + bw + "' is not a positive number");
  }
  auto value_of = [&](std::size_t r) { return row_value(t, fam, out, r); };

  const auto monotone = parse_monotone(t, fam, file_path);
  for (const std::string& name : fitted_axes(fam)) {
    EfficiencyAxis ax;
    ax.name = name;
    ax.monotone = monotone.contains(name) ? monotone.at(name) : 0;
    for (std::size_t r : train) ax.knots.push_back(fitted_axis_value(t, name, r));
    std::sort(ax.knots.begin(), ax.knots.end());
    ax.knots.erase(std::unique(ax.knots.begin(), ax.knots.end()), ax.knots.end());
    ax.log_offsets.assign(ax.knots.size(), 0.0);
    out.axes.push_back(std::move(ax));
  }

  // Unknowns: the constant, then knots 1..K-1 of each axis (knot 0 is pinned to 0
  // so the decomposition is unique and exactly separable data is reproduced).
  std::vector<std::size_t> first_col(out.axes.size());
  std::size_t unknowns = 1;
  std::size_t penalty_rows = 0;
  for (std::size_t a = 0; a < out.axes.size(); ++a) {
    first_col[a] = unknowns;
    const std::size_t k = out.axes[a].knots.size();
    unknowns += k - 1;
    if (k >= 3) penalty_rows += k - 2;
  }
  auto col_of = [&](std::size_t a, std::size_t knot) -> long {
    return knot == 0 ? -1 : static_cast<long>(first_col[a] + knot - 1);
  };
  Eigen::MatrixXd A = Eigen::MatrixXd::Zero(static_cast<long>(train.size() + penalty_rows), static_cast<long>(unknowns));
  Eigen::VectorXd b = Eigen::VectorXd::Zero(A.rows());
  std::vector<std::vector<double>> knot_weight(out.axes.size());
  for (std::size_t a = 0; a < out.axes.size(); ++a) knot_weight[a].assign(out.axes[a].knots.size(), 0.0);
  for (std::size_t i = 0; i < train.size(); ++i) {
    const long row = static_cast<long>(i);
    A(row, 0) = 1;
    b(row) = std::log(value_of(train[i]));
    for (std::size_t a = 0; a < out.axes.size(); ++a) {
      const auto& knots = out.axes[a].knots;
      if (knots.size() == 1) continue;
      const auto [j, w] = locate(knots, fitted_axis_value(t, out.axes[a].name, train[i]));
      if (const long c = col_of(a, j); c >= 0) A(row, c) += 1 - w;
      if (const long c = col_of(a, j + 1); c >= 0) A(row, c) += w;
      knot_weight[a][j] += 1 - w;
      knot_weight[a][j + 1] += w;
    }
  }
  // Smoothness: penalise the change of slope (per octave) at each interior knot.
  const double s = std::sqrt(options.smoothing);
  long row = static_cast<long>(train.size());
  for (std::size_t a = 0; a < out.axes.size(); ++a) {
    const auto& knots = out.axes[a].knots;
    for (std::size_t j = 1; j + 1 < knots.size(); ++j) {
      const double h0 = std::log2(knots[j]) - std::log2(knots[j - 1]);
      const double h1 = std::log2(knots[j + 1]) - std::log2(knots[j]);
      const double coef[3] = {1 / h0, -(1 / h0 + 1 / h1), 1 / h1};
      for (std::size_t d = 0; d < 3; ++d) {
        if (const long c = col_of(a, j - 1 + d); c >= 0) A(row, c) += s * coef[d];
      }
      ++row;
    }
  }
  const Eigen::VectorXd x = A.colPivHouseholderQr().solve(b);

  out.log_constant = x(0);
  for (std::size_t a = 0; a < out.axes.size(); ++a) {
    auto& ax = out.axes[a];
    for (std::size_t j = 1; j < ax.knots.size(); ++j) ax.log_offsets[j] = x(col_of(a, j));
    if (ax.monotone != 0 && ax.knots.size() > 1) {
      std::vector<double> v = ax.log_offsets;
      std::vector<double> w = knot_weight[a];
      for (double& wi : w) wi = std::max(wi, 1e-6);
      if (ax.monotone < 0) for (double& vi : v) vi = -vi;
      v = isotonic_non_decreasing(v, w);
      if (ax.monotone < 0) for (double& vi : v) vi = -vi;
      ax.log_offsets = v;
    }
  }
  // Re-centre the constant after the monotone projection moved the offsets.
  if (std::any_of(out.axes.begin(), out.axes.end(), [](const EfficiencyAxis& ax) { return ax.monotone != 0; })) {
    double sum = 0;
    for (std::size_t i = 0; i < train.size(); ++i) {
      std::vector<double> shape;
      for (const auto& ax : out.axes) shape.push_back(fitted_axis_value(t, ax.name, train[i]));
      const double without_constant = std::log(out.lookup(shape).value) - out.log_constant;
      sum += std::log(value_of(train[i])) - without_constant;
    }
    out.log_constant = sum / static_cast<double>(train.size());
  }

  if (fam.quantity != Quantity::kLatency) {
    for (std::size_t r : train) out.max_value = std::max(out.max_value, value_of(r));
  }
  out.fit_error = error_over(t, fam, out, train);
  out.held_out_error = error_over(t, fam, out, test);
  return out;
}

EfficiencyProfile fit_profile(const CalibrationFile& file, const FitOptions& options) {
  EfficiencyProfile p;
  auto attr = [&](const char* k) {
    const auto it = file.attributes.find(k);
    return it == file.attributes.end() ? std::string() : it->second;
  };
  p.device = attr("device");
  p.backend = attr("backend");
  p.source = file.path;
  p.calibration_date = attr("date");
  for (const auto& entry : file.tables) {
    const std::string& name = entry.first;
    const auto& t = entry.second;  // a named reference: clang 14 cannot capture a structured binding
    const KernelFamily& fam = kernel_family(name);
    auto distinct = [&](const char* column) {
      std::vector<double> v = t.column(column);
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
      return v;
    };
    const std::vector<double> dtypes = fam.per_dtype ? distinct("dtype_bits") : std::vector<double>{0};
    const std::vector<double> node_counts = t.columns.contains("nodes") ? distinct("nodes") : std::vector<double>{0};
    for (double d : dtypes) {
      for (double nodes : node_counts) {
        FittedTable et = fit_table(t, d, options, file.path, nodes);
        p.tables[et.name] = std::move(et);
      }
    }
  }
  return p;
}

}  // namespace agentsim::calib
