#pragma once
// A fitted table: value(shape) = exp(log_constant + sum over axes of the axis's
// piecewise-linear offset in log2(shape)). For compute and memory families the
// value is achieved / peak; for latency families it is seconds per operation.
#include <map>
#include <string>
#include <vector>

#include "calibration/kernel_family.hpp"

namespace agentsim::calib {

struct EfficiencyAxis {
  std::string name;                 // shape column, e.g. "m"
  int monotone = 0;                 // +1 non-decreasing, -1 non-increasing, 0 free
  std::vector<double> knots;        // measured values, ascending, > 0
  std::vector<double> log_offsets;  // natural-log factor at each knot
};

// Relative error of the fit, (fitted / measured - 1), over a set of points.
struct FitError {
  std::size_t points = 0;
  double rms_rel_error = 0;
  double max_rel_error = 0;  // largest |fitted / measured - 1|
};

struct EfficiencyLookup {
  double value = 0;           // efficiency in (0, ~1], or seconds for latency tables
  bool extrapolated = false;  // some axis lay outside its measured knots (edge value used)
  std::string note;           // which axes, e.g. "m=4096 above measured 1..1024"; empty if none
};

struct FittedTable {
  std::string name;      // profile key: family, plus "_<dtype>" for per-dtype families
  std::string family;    // kernel family, e.g. "gemm"
  std::string dtype;     // "fp32", "bf16", ...; empty for families without dtypes
  Quantity quantity = Quantity::kCompute;
  double peak = 0;       // FLOP/s or bytes/s the efficiency divides; 0 for latency tables
  std::string peak_source;
  // GEMM families: the HBM bandwidth of the roofline the value is a fraction of (the value
  // is then max(flops / peak, bytes / mem_bw_Bps) / measured time, so it prices the memory
  // side of a small-M GEMM too); 0: the value is achieved FLOP/s / peak only.
  double mem_bw_Bps = 0;
  double log_constant = 0;
  std::vector<EfficiencyAxis> axes;
  // Compute and memory families: the largest value among the points the fit used; lookup()
  // never returns more (a separable fit can combine two axes' rises, each measured on other
  // rows, past anything measured). 0: no cap (latency tables, tables written before it).
  double max_value = 0;
  FitError fit_error;       // over the points the fit used
  FitError held_out_error;  // over measured points held out of the fit
  // Optional (written only when set): the measured table of another accelerator this one
  // was derived from ("b200": its efficiencies against this accelerator's datasheet peak),
  // and where the numbers came from (source files, rows, quality levels).
  std::string derived_from;
  // Optional: the measured sibling whose rows fill this table below its own smallest size, and
  // that size ("h100-sxm below m 1024"); the rows keep their fraction of each roofline.
  std::string extended_from;
  std::string provenance;
  // Optional: the kernel implementation(s) whose calls the table measured (calibration/
  // kernel_implementation.hpp ids, ", " between several: a best-of-sources table), e.g. "deepgemm".
  std::string implementation;

  // Shape values in axis order. Outside the measured range each axis is held at
  // its edge knot and the result is flagged; never extrapolates silently.
  EfficiencyLookup lookup(const std::vector<double>& shape) const;
  // The same over `n` values; with `with_note` false no note text is built (hot paths).
  EfficiencyLookup lookup(const double* shape, std::size_t n, bool with_note = true) const;
  // True when lookup() gives the same value (to rounding) at every shape on the segment from
  // `a` to `b` (n values each, axis order): on every axis where they differ both lie at or beyond
  // the same edge knot, or all the knots that shape the values between them have one offset.
  bool constant_between(const double* a, const double* b, std::size_t n) const;
  // Shape by axis name; throws core::Error naming a missing axis.
  EfficiencyLookup lookup(const std::map<std::string, double>& shape) const;
};

}  // namespace agentsim::calib
