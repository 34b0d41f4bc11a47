#pragma once
// Cross-check: the step cost's per-op roofline (hw::op_time) with a profile's efficiencies predicts
// the time of every measured calibration kernel; errors are reported per table,
// separately for the shapes the fit used and the shapes held out of it.
#include <string>
#include <vector>

#include "calibration/efficiency_profile.hpp"
#include "calibration/measurement_table.hpp"

namespace agentsim::calib {

// Error of predicted time against measured time, (predicted / measured - 1).
struct PredictionError {
  std::size_t points = 0;
  double mape = 0;            // mean |error|
  double mean_error = 0;      // mean signed error (> 0: predicted slower than measured)
  double max_abs_error = 0;   // largest |error|
  std::size_t extrapolated = 0;  // lookups outside the measured range
};

struct CrossCheckRow {
  std::string table;  // profile table name, e.g. "gemm_fp32"
  PredictionError fitted;
  PredictionError held_out;
};

// Predicted seconds of one measured row of `t` under table `et`, never below `floor_s` (a
// kernel's launch floor; latency tables take none).
double predict_time_s(const MeasurementTable& t, std::size_t row, const FittedTable& et, bool* extrapolated = nullptr,
                      double floor_s = 0);

// One row per profile table whose family the file holds, in table-name order; a microbenchmark
// file's kernels priced at least at the profile's launch floor (eager, or graph-replay where the
// file's `launch` attribute says "graph"), a published file's at none. A derived table is checked where the file has rows of it (a device
// run of that accelerator).
std::vector<CrossCheckRow> cross_check(const CalibrationFile& file, const EfficiencyProfile& profile);

// A fixed-width text table of the rows.
std::string cross_check_table(const std::vector<CrossCheckRow>& rows);

}  // namespace agentsim::calib
