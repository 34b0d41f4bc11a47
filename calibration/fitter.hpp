#pragma once
// Fitting: measurements -> efficiency tables. Per table, ln(value) is modelled as
// a constant plus one piecewise-linear function of log2(x) per shape axis (knots
// at the measured values), solved by Eigen least squares with a second-difference
// smoothness penalty, then projected onto monotone where the table says physics
// requires it. Rows with held_out = 1 never enter the fit.
#include <string>

#include "calibration/efficiency_profile.hpp"
#include "calibration/measurement_table.hpp"

namespace agentsim::calib {

struct FitOptions {
  double smoothing = 0.02;  // weight of the second-difference penalty (ln units per octave^2)
};

// Fits every table of `file` (one per dtype for per-dtype families).
EfficiencyProfile fit_profile(const CalibrationFile& file, const FitOptions& options = {});

// Fits the rows of `t` whose dtype_bits equals `dtype_bits` (ignored when the
// family has no dtypes). The peak is the best achieved rate among fitted rows.
// A table with a `nodes` column (collectives measured on 1, 2, ... systems) is fitted once
// per node count given in `nodes` (0: all rows), named "<family>_<N>node".
// The peak is the table attribute `peak_<dtype>` / `peak_<N>node` or `peak` when present
// (a datasheet figure; `peak_source` says which), else the best achieved rate among the
// fitted rows. Attributes `provenance` and `derived_from` are copied into the table.
FittedTable fit_table(const MeasurementTable& t, double dtype_bits, const FitOptions& options,
                          const std::string& file_path = "", double nodes = 0);

// The value a table measured at each row: achieved / peak, or seconds per op.
std::vector<double> measured_values(const MeasurementTable& t, const FittedTable& fitted);

// Error of `fitted` (which need not be fitted from `t`) over the rows of `t` that fit_table
// would select for `dtype_bits` (and `nodes`), held out or not.
FitError table_error(const MeasurementTable& t, const FittedTable& fitted, double dtype_bits, double nodes = 0);

}  // namespace agentsim::calib
