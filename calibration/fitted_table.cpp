#include "calibration/fitted_table.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/core/error.hpp"
#include "sim/core/format_g.hpp"

namespace agentsim::calib {
namespace {

std::string fmt(double v) { return core::format_g(v); }

}  // namespace

EfficiencyLookup FittedTable::lookup(const std::vector<double>& shape) const {
  return lookup(shape.data(), shape.size(), true);
}

EfficiencyLookup FittedTable::lookup(const double* shape, std::size_t n, bool with_note) const {
  if (n != axes.size())
    throw core::Error(core::SourceLocation{"", 0, name}, "lookup needs " + std::to_string(axes.size()) +
                                                             " shape values, got " + std::to_string(n));
  EfficiencyLookup out;
  double log_value = log_constant;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const EfficiencyAxis& ax = axes[a];
    const double x = shape[a];
    // Relative tolerance so a knot that went through YAML text still matches.
    const double lo = ax.knots.front() * (1 - 1e-9);
    const double hi = ax.knots.back() * (1 + 1e-9);
    if (!(x >= lo && x <= hi)) {
      out.extrapolated = true;
      if (with_note) {
        if (!out.note.empty()) out.note += "; ";
        out.note += ax.name + "=" + fmt(x) + (x < lo ? " below" : " above") + " measured " + fmt(ax.knots.front()) +
                    ".." + fmt(ax.knots.back());
      }
    }
    if (ax.knots.size() == 1 || !(x > ax.knots.front())) {
      log_value += ax.log_offsets.front();
      continue;
    }
    if (x >= ax.knots.back()) {
      log_value += ax.log_offsets.back();
      continue;
    }
    std::size_t j = 0;
    while (ax.knots[j + 1] < x) ++j;
    const double l0 = std::log2(ax.knots[j]);
    const double l1 = std::log2(ax.knots[j + 1]);
    const double t = (std::log2(x) - l0) / (l1 - l0);
    log_value += (1 - t) * ax.log_offsets[j] + t * ax.log_offsets[j + 1];
  }
  out.value = std::exp(log_value);
  if (max_value > 0) out.value = std::min(out.value, max_value);
  return out;
}

bool FittedTable::constant_between(const double* a, const double* b, std::size_t n) const {
  if (n != axes.size()) return false;
  for (std::size_t i = 0; i < n; ++i) {
    const EfficiencyAxis& ax = axes[i];
    const double lo = std::min(a[i], b[i]), hi = std::max(a[i], b[i]);
    if (lo == hi || ax.knots.size() == 1) continue;
    // lookup() holds the front offset up to the first knot and the back one from the last;
    // between, it interpolates the two knots around x. The knots whose offsets shape any
    // value in [lo, hi]: from the last knot at or below lo to the first at or above hi.
    std::size_t first = 0, last = ax.knots.size() - 1;
    while (first + 1 < ax.knots.size() && ax.knots[first + 1] <= lo) ++first;
    while (last > 0 && ax.knots[last - 1] >= hi) --last;
    for (std::size_t j = first + 1; j <= last && j < ax.knots.size(); ++j) {
      if (ax.log_offsets[j] != ax.log_offsets[first]) return false;
    }
  }
  return true;
}

EfficiencyLookup FittedTable::lookup(const std::map<std::string, double>& shape) const {
  std::vector<double> ordered;
  for (const auto& ax : axes) {
    const auto it = shape.find(ax.name);
    if (it == shape.end()) throw core::Error(core::SourceLocation{"", 0, name}, "lookup is missing axis '" + ax.name + "'");
    ordered.push_back(it->second);
  }
  return lookup(ordered);
}

}  // namespace agentsim::calib
