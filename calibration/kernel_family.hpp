#pragma once
// The kernel families a calibration file may hold: which columns are the shape
// axes, which is the work done and which the achieved rate. Shared by the
// backends (writing), the reader (validating) and the fitter.
#include <string>
#include <vector>

namespace agentsim::calib {

struct MeasurementTable;

// What a family's fitted table predicts.
enum class Quantity {
  kCompute,  // efficiency = achieved FLOP/s / peak FLOP/s
  kMemory,   // efficiency = achieved bytes/s / peak bytes/s (HBM, DRAM, host link, fabric)
  kLatency,  // seconds per operation (launch and graph-replay floors)
};

struct KernelFamily {
  std::string name;               // dataset name, e.g. "gemm"
  Quantity quantity;
  std::vector<std::string> axes;  // shape columns, all > 0
  // The axes the fit takes as factors, on log2 scale; empty: `axes`. May name a derived axis
  // (fitted_axis_value): grouped_gemm's "weight_bytes".
  std::vector<std::string> fit_axes;
  std::string work_column;        // "flops" or "bytes"; empty for latency families
  std::string achieved_column;    // achieved rate per second, or seconds per op for latency
  bool per_dtype = false;         // has a dtype_bits column; fitted once per dtype
  std::string help;
};

// The axes a fitted table of `f` is keyed by.
const std::vector<std::string>& fitted_axes(const KernelFamily& f);
// A fitted axis's value at row `row` of `t`: its column, or for the derived axis "weight_bytes"
// groups x n x k x (dtype_bits / 8 + weight_scale_bytes) (the expert weight bytes a grouped GEMM
// call streams, block scales included).
double fitted_axis_value(const MeasurementTable& t, const std::string& axis, std::size_t row);

// Every known family, in a fixed order.
const std::vector<KernelFamily>& kernel_families();
// The family called `name`; throws core::Error listing the known names.
const KernelFamily& kernel_family(const std::string& name);
// Columns every table of `f` must have (axes, work, achieved, time_s, held_out, ...).
std::vector<std::string> required_columns(const KernelFamily& f);
// Families a microbenchmark backend (cpu, cuda) always writes; a file of that backend missing one
// is an error. Other backends (published, torch) promise none.
std::vector<std::string> required_families(const std::string& backend);

// "fp4" .. "fp32" from a dtype_bits column value (4, 8, 16, 32); throws otherwise.
std::string dtype_name(double bits);

// HBM bytes of `groups` GEMMs D[m,n] = A[m,k] x B[k,n] at dtype_bits inputs, read and
// written once each (weights and activations in the dtype, output in bf16, fp32 for fp32),
// plus the weights' block scales (`weight_scale_bytes` per weight: NVFP4 1/16, MXFP4 1/32):
// the memory side of a GEMM's roofline.
double gemm_bytes(double groups, double m, double n, double k, double dtype_bits, double weight_scale_bytes = 0);
// A GEMM table's row's weight_scale_bytes column (0 where the table has none).
double weight_scale_bytes(const MeasurementTable& t, std::size_t row);
// gemm_bytes of row `row` of a gemm or grouped_gemm table (groups 1 for gemm), block scales included.
double gemm_row_bytes(const MeasurementTable& t, std::size_t row);
std::string to_string(Quantity q);

}  // namespace agentsim::calib
