#include "calibration/kernel_family.hpp"

#include "calibration/measurement_table.hpp"
#include "sim/core/error.hpp"
#include "sim/core/suggest.hpp"

namespace agentsim::calib {

const std::vector<KernelFamily>& kernel_families() {
  static const std::vector<KernelFamily> families = {
      {"gemm", Quantity::kCompute, {"m", "n", "k"}, {}, "flops", "achieved_flops_per_s", true,
       "D[m,n] = A[m,k] x B[k,n]; m is tokens (down to 1 for decode). With an hbm_bw_Bps table "
       "attribute the fitted value is the roofline fraction: max(flops / peak, gemm_bytes / hbm_bw_Bps) / time"},
      {"grouped_gemm", Quantity::kCompute, {"groups", "m", "n", "k"}, {"weight_bytes", "m", "n", "k"}, "flops",
       "achieved_flops_per_s", true,
       "MoE experts: `groups` GEMMs of m tokens each. Fitted by the weight bytes one call streams "
       "(groups x n x k at the dtype), not by groups: a fused MoE call's fixed costs amortise over what it "
       "streams, and a tensor-parallel call (many expert slices) lands where an expert-parallel call of as "
       "many tokens streams as much"},
      {"mem_read", Quantity::kMemory, {"size_bytes"}, {}, "bytes", "achieved_bytes_per_s", false,
       "streaming read (sum) of a buffer"},
      {"mem_copy", Quantity::kMemory, {"size_bytes"}, {}, "bytes", "achieved_bytes_per_s", false,
       "copy of a buffer; bytes = read + written"},
      {"attention_decode", Quantity::kMemory, {"batch", "context"}, {"kv_bytes"}, "bytes", "achieved_bytes_per_s", false,
       "one new token per sequence against a paged KV cache; bytes = KV read. Fitted by the KV bytes one call "
       "reads (its `bytes`), not by batch and context: a call's bandwidth follows what it streams, and a "
       "separable batch x context fit multiplies the two rises past the HBM peak"},
      {"attention_decode_compute", Quantity::kCompute, {"query_heads"}, {}, "flops", "achieved_flops_per_s", false,
       "one new token per sequence against a paged KV cache where the call is bound by its math, not its KV "
       "read: a dense-MLA decode call of many query heads (sequences x heads; all 128 of DeepSeek's on an "
       "attention-data-parallel rank), whose absorbed attention does ~242 FLOPs per byte of a BF16 KV cache"},
      {"mla_decode_floor", Quantity::kLatency, {"query_heads"}, {}, "", "seconds_per_call", false,
       "a dense-MLA decode-attention call at a tiny KV cache (tens of tokens a sequence): the kernel's fixed "
       "cost (work split, partial-result reduce) and its query tiles' work, by query heads (sequences x heads); "
       "a floor under the bytes-fitted attention_decode table, of the vendor's own kernel"},
      {"attention_prefill", Quantity::kCompute, {"batch", "seq"}, {}, "flops", "achieved_flops_per_s", false,
       "causal self-attention over seq new tokens"},
      {"h2d_copy", Quantity::kMemory, {"size_bytes"}, {}, "bytes", "achieved_bytes_per_s", false,
       "pinned host to device copy"},
      {"d2h_copy", Quantity::kMemory, {"size_bytes"}, {}, "bytes", "achieved_bytes_per_s", false,
       "device to pinned host copy"},
      {"launch_latency", Quantity::kLatency, {"kernels"}, {}, "", "seconds_per_kernel", false,
       "back-to-back launches of an empty kernel"},
      {"graph_replay_latency", Quantity::kLatency, {"kernels"}, {}, "", "seconds_per_kernel", false,
       "replay of a CUDA graph of empty kernels, per kernel"},
      {"nccl_all_reduce", Quantity::kMemory, {"size_bytes"}, {}, "bytes", "achieved_bytes_per_s", false,
       "bytes = bus bytes (2(n-1)/n x size)"},
      {"custom_all_reduce", Quantity::kMemory, {"size_bytes"}, {}, "bytes", "achieved_bytes_per_s", false,
       "an engine's own all-reduce kernel (CUDA IPC one-/two-shot); bytes = bus bytes (2(n-1)/n x size)"},
      {"nccl_all_gather", Quantity::kMemory, {"size_bytes"}, {}, "bytes", "achieved_bytes_per_s", false,
       "bytes = bus bytes ((n-1)/n x size)"},
      {"nccl_all_to_all", Quantity::kMemory, {"size_bytes"}, {}, "bytes", "achieved_bytes_per_s", false,
       "bytes = bus bytes ((n-1)/n x size)"},
  };
  return families;
}

const std::vector<std::string>& fitted_axes(const KernelFamily& f) { return f.fit_axes.empty() ? f.axes : f.fit_axes; }

double fitted_axis_value(const MeasurementTable& t, const std::string& axis, std::size_t row) {
  if (axis == "kv_bytes") return t.column("bytes")[row];
  if (axis == "weight_bytes")
    return t.column("groups")[row] * t.column("n")[row] * t.column("k")[row] *
           (t.column("dtype_bits")[row] / 8 + weight_scale_bytes(t, row));
  return t.column(axis)[row];
}

const KernelFamily& kernel_family(const std::string& name) {
  std::vector<std::string> names;
  for (const auto& f : kernel_families()) {
    if (f.name == name) return f;
    names.push_back(f.name);
  }
  const std::string near = core::closest_match(name, names);
  throw core::Error("unknown kernel family '" + name + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                    "; known: " + core::join_names(names));
}

std::vector<std::string> required_columns(const KernelFamily& f) {
  std::vector<std::string> cols = f.axes;
  if (f.per_dtype) cols.push_back("dtype_bits");
  if (!f.work_column.empty()) cols.push_back(f.work_column);
  cols.push_back(f.achieved_column);
  cols.push_back("time_s");
  cols.push_back("held_out");
  return cols;
}

std::vector<std::string> required_families(const std::string& backend) {
  // Only the microbenchmark backends promise their families; published measurements and other
  // tools' files (torch_gemm_check.py: backend "torch") hold what they measured.
  if (backend != "cpu" && backend != "cuda") return {};
  std::vector<std::string> common = {"gemm", "grouped_gemm", "mem_read", "mem_copy", "attention_decode",
                                     "attention_prefill"};
  if (backend == "cuda") {
    for (const char* f : {"h2d_copy", "d2h_copy", "launch_latency", "graph_replay_latency"}) common.push_back(f);
  }
  return common;
}

double gemm_bytes(double groups, double m, double n, double k, double dtype_bits, double weight_scale_bytes) {
  const double in = dtype_bits / 8, out = dtype_bits >= 32 ? 4.0 : 2.0;
  return groups * (k * n * (in + weight_scale_bytes) + m * k * in + m * n * out);
}

double weight_scale_bytes(const MeasurementTable& t, std::size_t row) {
  const auto it = t.columns.find("weight_scale_bytes");
  return it == t.columns.end() ? 0.0 : it->second[row];
}

double gemm_row_bytes(const MeasurementTable& t, std::size_t row) {
  const double groups = t.family == "grouped_gemm" ? t.column("groups")[row] : 1.0;
  return gemm_bytes(groups, t.column("m")[row], t.column("n")[row], t.column("k")[row], t.column("dtype_bits")[row],
                    weight_scale_bytes(t, row));
}

std::string dtype_name(double bits) {
  if (bits == 4) return "fp4";
  if (bits == 8) return "fp8";
  if (bits == 16) return "bf16";
  if (bits == 32) return "fp32";
  throw core::Error("dtype_bits " + std::to_string(bits) + " is not one of 4, 8, 16, 32");
}

std::string to_string(Quantity q) {
  switch (q) {
    case Quantity::kCompute: return "compute";
    case Quantity::kMemory: return "memory";
    case Quantity::kLatency: return "latency";
  }
  return "compute";
}

}  // namespace agentsim::calib
