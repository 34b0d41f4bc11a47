#include "calibration/published_import.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <regex>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "calibration/calibration_file.hpp"
#include "calibration/device_run_anchors.hpp"
#include "calibration/fitter.hpp"
#include "calibration/kernel_family.hpp"
#include "calibration/kernel_implementation.hpp"
#include "sim/core/atomic_write.hpp"
#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/core/suggest.hpp"

namespace agentsim::calib {
namespace fs = std::filesystem;

namespace {

// Where the vendored CSVs say nothing about the buffer: BabelStream's default array of
// 2^25 float64 (the Azure guide runs it with defaults).
constexpr double kBabelStreamDefaultBytes = 33554432.0 * 8;

const std::map<std::string, std::vector<std::string>>& expected_columns() {
  static const std::map<std::string, std::vector<std::string>> cols = {
      {"gemm.csv",
       {"gpu_family", "gpu", "library", "kernel_or_op", "dtype", "layout_or_scaling", "num_groups", "m", "n", "k",
        "achieved_tflops", "achieved_GBps", "latency_us", "speedup_vs_baseline", "source", "quality", "notes"}},
      {"attention.csv",
       {"gpu_family", "gpu", "kernel", "phase", "dtype", "batch", "seqlen_q", "seqlen_kv", "num_heads_q", "num_heads_kv",
        "head_dim_qk", "head_dim_v", "causal", "achieved_tflops", "achieved_GBps", "latency_us", "source", "quality",
        "notes"}},
      {"collectives.csv",
       {"gpu_family", "op", "library", "gpu", "gpus", "nodes", "topology", "dtype", "message_bytes", "message_label",
        "latency_us", "algbw_GBps", "busbw_GBps", "source", "quality", "notes"}},
      {"aiter_tuned.csv",
       {"gpu_family", "gpu", "library", "kernel_or_op", "dtype", "layout_or_scaling", "num_groups", "m", "n", "k",
        "achieved_tflops", "achieved_GBps", "latency_us", "speedup_vs_baseline", "source", "quality", "notes"}},
      {"fused_moe.csv",
       {"gpu_family", "gpu", "library", "kernel_or_op", "dtype", "layout_or_scaling", "num_groups", "m", "n", "k",
        "achieved_tflops", "achieved_GBps", "latency_us", "speedup_vs_baseline", "source", "quality", "notes"}},
      {"custom_all_reduce.csv",
       {"gpu_family", "op", "library", "gpu", "gpus", "nodes", "topology", "dtype", "message_bytes", "message_label",
        "latency_us", "algbw_GBps", "busbw_GBps", "source", "quality", "notes"}},
      {"memory.csv",
       {"gpu_family", "gpu", "test", "tool", "direction", "buffer_bytes", "achieved_GBps", "achieved_TBps", "source",
        "quality", "notes"}},
      {"overheads.csv",
       {"gpu_family", "item", "gpu", "software", "config", "value_us", "value_max_us", "source", "quality", "notes"}},
  };
  return cols;
}

// A plain decimal number (no unit, no '~', no text), or NaN.
double parse_plain(const std::string& s) {
  if (s.empty()) return std::nan("");
  double v = 0;
  const char* end = s.data() + s.size();
  const auto [ptr, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || ptr != end || !std::isfinite(v)) return std::nan("");
  return v;
}

bool starts_with_ci(const std::string& s, const std::string& prefix) {
  if (s.size() < prefix.size()) return false;
  for (std::size_t i = 0; i < prefix.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(s[i])) != std::tolower(static_cast<unsigned char>(prefix[i]))) return false;
  }
  return true;
}

bool contains_ci(const std::string& s, const std::string& part) {
  std::string a = s, b = part;
  for (char& c : a) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (char& c : b) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return a.find(b) != std::string::npos;
}

// All-reduce curves by message size: NCCL/RCCL's (collectives.csv) and the engines' custom
// kernels (custom_all_reduce.csv).
bool is_all_reduce(const std::string& family) { return family == "nccl_all_reduce" || family == "custom_all_reduce"; }
bool is_collective(const std::string& family) { return family.starts_with("nccl_") || family == "custom_all_reduce"; }
// Tables another vendor's accelerator never derives: its fabric's collectives, its own kernel's
// floor, its driver's launch path.
bool vendor_specific(const std::string& family) {
  return is_collective(family) || family == "mla_decode_floor" || family == "launch_latency" ||
         family == "graph_replay_latency";
}

// The catalog accelerator a device run's `device` attribute (cudaDeviceProp::name) names, or "".
std::string map_device_name(const std::string& device) {
  static const std::map<std::string, std::string> names = {
      {"NVIDIA H200", "h200"},                       // seen: calibration/data/measured/PROVENANCE.md
      {"NVIDIA H100 80GB HBM3", "h100-sxm"},         // the SXM part's name as its tools print it (gemm.csv's vLLM rows: "H100 80GB HBM3")
  };
  const auto it = names.find(device);
  return it == names.end() ? "" : it->second;
}

// The axis a same-vendor sibling lends rows below a measured table's smallest value on
// (Importer::extend_below_range): a fused MoE call's expert width n, else the first axis (a
// GEMM's m, an all-reduce's message size).
std::size_t lent_axis(const std::string& family) { return family == "grouped_gemm" ? 2 : 0; }

// The math format a gemm/attention dtype label names, in bits (0 when none we price).
double dtype_bits_of(const std::string& label) {
  if (starts_with_ci(label, "FP4")) return 4;
  if (starts_with_ci(label, "FP8")) return 8;
  if (starts_with_ci(label, "BF16") || starts_with_ci(label, "FP16")) return 16;  // same tensor-core rate
  if (starts_with_ci(label, "FP32") || starts_with_ci(label, "TF32")) return 32;
  return 0;
}

// Block-scale bytes per weight a GEMM dtype label states: a 1-byte scale "per N elements"
// (NVFP4 16, MXFP4 and MXFP8 32), or a 4-byte scale per "NxN weights" tile (DeepSeek's and
// aiter's 128 x 128 FP8 blocks); 0 where the label states none.
double scale_bytes_of(const std::string& label) {
  static const std::regex per(R"(scale per (\d+) elements)"), tile(R"((\d+)x(\d+) weights)");
  std::smatch m;
  if (std::regex_search(label, m, per)) return 1.0 / std::stod(m[1].str());
  if (std::regex_search(label, m, tile)) return 4.0 / (std::stod(m[1].str()) * std::stod(m[2].str()));
  return 0;
}

hw::DType dtype_of_bits(double bits) {
  if (bits == 4) return hw::DType::kFp4;
  if (bits == 8) return hw::DType::kFp8;
  if (bits == 16) return hw::DType::kBf16;
  return hw::DType::kFp32;
}

std::string short_source(const std::string& s) {
  std::string out = s.substr(0, s.find(';'));
  if (out.size() > 140) out = out.substr(0, 137) + "...";
  return out;
}

// Why a GEMM call of `flops` moving `bytes` at `achieved` FLOP/s is not a measurement of its shape
// on `a` ("" when it is): no datasheet peak for the dtype, or a rate above the datasheet roofline
// (aiter once committed a 1,024-token time for 32,768 tokens: 1.8x MI355X's FP8 peak).
std::string gemm_not_a_measurement(const hw::Accelerator& a, double bits, double flops, double bytes, double achieved) {
  const auto peak = a.peak_flops.find(dtype_of_bits(bits));
  if (peak == a.peak_flops.end()) return "accelerator has no datasheet peak for the dtype";
  const double compute_x = achieved / peak->second;
  const double memory_x = a.hbm_bw_Bps > 0 ? bytes / (flops / achieved) / a.hbm_bw_Bps : 0;
  if (compute_x <= 1 && memory_x <= 1) return "";
  char why[96];
  std::snprintf(why, sizeof why, "beyond the datasheet roofline (%.2fx the %s peak)", std::max(compute_x, memory_x),
                compute_x >= memory_x ? dtype_name(bits).c_str() : "HBM");
  return why;
}

// One anchor row on its way into a table.
struct Row {
  std::vector<double> axes;  // in the family's axis order
  double dtype_bits = 0;     // per-dtype families
  double scale_bytes = 0;    // GEMM families: block-scale bytes per weight its format stores
  double nodes = 0;          // collectives
  double gpus = 0;           // collectives
  double achieved = 0;       // FLOP/s, bytes/s, or seconds per op
  double work = 0;           // FLOPs or bytes of one call (nominal where only a rate is published)
  double time_s = 0;
  double extra = 0;          // attention_prefill: the published batch (kept beside the fitted axis)
  bool shaped = true;        // false: the source gives no shape (a headline), axes are placeholders
  std::string gpu, quality, source, file;
  std::string impl;  // the kernel implementation it timed (kernel_implementation.hpp), "" if unnamed
  int line = 0;
  std::string borrowed_from;  // a same-vendor sibling's row below this accelerator's own sizes (extend_below_range)
  std::string scaled_from;    // another dtype's row of the same kernel above this dtype's sizes (extend_above_range)
};

struct FileInfo {
  std::string shown;  // the path provenance names (relative to the source root where vendored)
  std::size_t rows = 0;
  std::uintmax_t bytes = 0;
  std::string sha256;  // from PROVENANCE.md when its size matches, else empty
};

// "| file | rows | bytes | sha256 |" rows of PROVENANCE.md, by file name.
std::map<std::string, std::pair<std::uintmax_t, std::string>> provenance_hashes(const std::string& dir) {
  std::map<std::string, std::pair<std::uintmax_t, std::string>> out;
  std::ifstream in(fs::path(dir) / "PROVENANCE.md");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      const auto b = cell.find_first_not_of(' ');
      const auto e = cell.find_last_not_of(' ');
      cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
    }
    // cells[0] is the empty text before the first '|'.
    if (cells.size() >= 5 && (cells[1].ends_with(".csv") || cells[1].ends_with(".h5")) && cells[4].size() == 64) {
      out[cells[1]] = {static_cast<std::uintmax_t>(parse_plain(cells[3])), cells[4]};
    }
  }
  return out;
}

class Importer {
 public:
  Importer(const std::string& dir, const std::string& measured_dir, const std::vector<hw::Accelerator>& accs,
           const std::vector<hw::System>& systems)
      : dir_(dir), measured_dir_(measured_dir), accs_(accs), systems_(systems) {
    shown_dir_ = shown(dir, "calibration/data/published/kernels");
    shown_measured_dir_ = shown(measured_dir, "calibration/data/measured");
  }

  PublishedImport run(const std::string& profile_dir);

 private:
  using Handler = void (Importer::*)(const core::CsvReader&, ImportFileSummary&, const std::string& acc, Row row);
  void read_file(const std::string& name, Handler h);
  // Every calibration file (*.h5) under measured_dir_, in name order: the rows of the tables its
  // anchors.yaml lists, for the accelerator the file's `device` names; the rest counted as
  // skipped, with the reason.
  void read_device_files();
  // Provenance names a vendored folder relative to the source root (the same on every checkout).
  static std::string shown(const std::string& dir, const std::string& vendored) {
    std::string d = fs::path(dir).lexically_normal().string();
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    return d.ends_with(vendored) ? vendored : d;
  }
  void gemm_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row);
  void attention_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row);
  void collective_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row);
  void memory_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row);
  void overhead_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row);

  const hw::Accelerator* accelerator(const std::string& name) const {
    for (const auto& a : accs_) {
      if (a.name == name) return &a;
    }
    return nullptr;
  }
  double scale_out_per_gpu_Bps(const std::string& acc) const {
    for (const auto& s : systems_) {
      if (s.accelerator.name == acc && s.accelerators > 0 && s.scale_out.nics > 0)
        return s.scale_out.nic_bw_Bps * s.scale_out.nics / s.accelerators;
    }
    return 0;
  }
  void add(ImportFileSummary& s, const std::string& acc, const std::string& family, Row row) {
    ++s.used;
    rows_[acc][family].push_back(std::move(row));
  }
  static void skip(ImportFileSummary& s, const std::string& why) { ++s.skipped[why]; }
  // An all-reduce table has no group axis: per node count, only the largest group measured
  // (an 8-GPU node's); bus bytes 2(n - 1)/n scale it to smaller tensor-parallel groups.
  void keep_largest_groups();
  // A measured table that starts above a same-vendor sibling's smallest measured size takes the
  // sibling's rows below its own, at the same fraction of this accelerator's roofline (the link's
  // bandwidth for collectives): a GEMM's m, an all-reduce's message, a fused MoE call's expert
  // width n. Small sizes then come from a measurement of small sizes, not the edge value of large ones.
  void extend_below_range();
  // A fused-MoE (grouped) dtype measured over fewer tokens than another dtype of the same kernel on
  // the same accelerator (the same file and expert n, k; at least three identical shapes) takes that
  // dtype's larger calls, timed by the median ratio of the two dtypes' times over their shared
  // shapes, where the ratios agree within 25%: the kernel's own change of regime past the shorter
  // range (a tile switch, the turn to compute-bound) then comes from a measurement of that kernel,
  // not from the shorter range's edge value.
  void extend_above_range();
  CalibrationFile build_file(const std::string& acc, const std::map<std::string, std::vector<Row>>& families,
                             const std::string& profile_dir) const;
  // The datasheet peak a table of `name` divides on `acc` (0: none), and how it was read.
  std::pair<double, std::string> datasheet_peak(const hw::Accelerator& acc, const FittedTable& t) const;
  // The catalog's kernel_tables_from: each such table of an accelerator (in `measured`, and in the
  // profiles returned) becomes its same-die sibling's measured table at its own datasheet peak,
  // its own rows kept as a check (held-out error); skipped where this import measured no such
  // sibling table. Throws core::Error naming the catalog key for a bad table or accelerator name.
  void take_same_die_tables(std::map<std::string, EfficiencyProfile>& measured);
  // Sibling `sib`'s measured table at `a`'s datasheet peak, its provenance saying `why`; nullopt
  // where `a` has no such peak (fp4 math on an accelerator without it).
  std::optional<FittedTable> derived_table(const hw::Accelerator& a, const std::string& sib, const FittedTable& measured,
                                           const std::string& why) const;

  std::string dir_, measured_dir_, shown_dir_, shown_measured_dir_;
  const std::vector<hw::Accelerator>& accs_;
  const std::vector<hw::System>& systems_;
  std::map<std::string, FileInfo> files_;
  std::map<std::string, std::map<std::string, std::vector<Row>>> rows_;  // accelerator -> family -> rows
  std::map<std::string, std::map<std::string, std::vector<Row>>> own_rows_;  // rows_ before extend_below_range
  PublishedImport out_;
};

void Importer::read_file(const std::string& name, Handler h) {
  const fs::path path = fs::path(dir_) / name;
  const std::string shown = path.string();
  std::ifstream in = core::open_input(shown, "published measurements file");
  core::CsvReader r(in, shown);
  const std::vector<std::string>& want = expected_columns().at(name);
  for (const std::string& col : r.header()) {
    if (std::find(want.begin(), want.end(), col) != want.end()) continue;
    const std::string near = core::closest_match(col, want);
    throw core::Error(core::SourceLocation{shown, 1, col},
                      "unknown column '" + col + "'" + (near.empty() ? "" : " (did you mean '" + near + "'?)") +
                          "; expected: " + core::join_names(want));
  }
  for (const std::string& col : want) r.column(col);  // a missing column is an error at line 1
  ImportFileSummary summary;
  summary.file = name;
  const auto& anchors = anchor_quality_levels();
  const std::size_t c_family = r.column("gpu_family"), c_gpu = r.column("gpu"), c_quality = r.column("quality"),
                    c_source = r.column("source");
  // The column naming the kernel implementation a row timed.
  const std::string impl_column = name == "attention.csv" ? "kernel" : name == "memory.csv" ? "tool" : "library";
  const bool has_impl_column = std::find(want.begin(), want.end(), impl_column) != want.end();
  const std::size_t c_impl = has_impl_column ? r.column(impl_column) : 0;
  while (r.next()) {
    ++summary.rows;
    const std::string quality = r.field(c_quality);
    if (std::find(anchors.begin(), anchors.end(), quality) == anchors.end()) {
      skip(summary, "quality " + (quality.empty() ? std::string("(empty)") : quality) + " is not an anchor");
      continue;
    }
    const std::string acc = map_published_gpu(r.field(c_family), r.field(c_gpu));
    if (acc.empty() || accelerator(acc) == nullptr) {
      skip(summary, "gpu maps to no catalog accelerator");
      ++out_.unmapped_gpus[r.field(c_gpu)];
      continue;
    }
    Row row;
    row.gpu = r.field(c_gpu);
    row.quality = quality;
    row.source = short_source(r.field(c_source));
    row.file = name;
    row.line = r.line();
    if (has_impl_column) row.impl = implementation_of(name, r.field(c_impl));
    (this->*h)(r, summary, acc, std::move(row));
  }
  FileInfo& info = files_[name];
  info.shown = shown_dir_ + "/" + name;
  info.rows = summary.rows;
  info.bytes = fs::file_size(path);
  const auto hashes = provenance_hashes(dir_);
  if (const auto it = hashes.find(name); it != hashes.end() && it->second.first == info.bytes) info.sha256 = it->second.second;
  out_.files.push_back(std::move(summary));
}

void Importer::gemm_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row) {
  const double bits = dtype_bits_of(r.field(r.column("dtype")));
  if (bits == 0) return skip(s, "dtype not priced (gemm)");
  const hw::Accelerator& a = *accelerator(acc);
  const double groups_raw = parse_plain(r.field(r.column("num_groups")));
  const double groups = std::isnan(groups_raw) ? 1 : groups_raw;
  const double m = parse_plain(r.field(r.column("m"))), n = parse_plain(r.field(r.column("n"))),
               k = parse_plain(r.field(r.column("k")));
  if (!(m > 0 && n > 0 && k > 0 && groups > 0)) return skip(s, "shape not numeric");
  const double flops = 2 * m * n * k * groups;
  const double tflops = parse_plain(r.field(r.column("achieved_tflops")));
  const double latency_us = parse_plain(r.field(r.column("latency_us")));
  double achieved = 0;
  if (tflops > 0) {
    achieved = tflops * 1e12;
  } else if (latency_us > 0) {
    achieved = flops / (latency_us * 1e-6);
  } else {
    return skip(s, "no achieved rate");
  }
  const double scales = scale_bytes_of(r.field(r.column("dtype")));
  if (const std::string why = gemm_not_a_measurement(a, bits, flops, gemm_bytes(groups, m, n, k, bits, scales), achieved);
      !why.empty())
    return skip(s, why);
  row.dtype_bits = bits;
  row.scale_bytes = scales;
  row.achieved = achieved;
  row.work = flops;
  row.time_s = flops / achieved;
  const bool grouped = contains_ci(r.field(r.column("kernel_or_op")), "grouped");
  row.axes = grouped ? std::vector<double>{groups, m, n, k} : std::vector<double>{m, n, k};
  add(s, acc, grouped ? "grouped_gemm" : "gemm", std::move(row));
}

void Importer::attention_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row) {
  const std::string& phase = r.field(r.column("phase"));
  const double tflops = parse_plain(r.field(r.column("achieved_tflops")));
  const double gbps = parse_plain(r.field(r.column("achieved_GBps")));
  const double batch = parse_plain(r.field(r.column("batch")));
  if (starts_with_ci(phase, "decode floor")) {
    // A call at a tiny KV cache: its time is the kernel's fixed cost and its query tiles' work,
    // kept apart from the bytes-fitted table as a floor under it (mla_decode_floor).
    const double heads = parse_plain(r.field(r.column("num_heads_q")));
    const double kv_heads = parse_plain(r.field(r.column("num_heads_kv")));
    const double latency_us = parse_plain(r.field(r.column("latency_us")));
    if (!(kv_heads == 1 && parse_plain(r.field(r.column("head_dim_qk"))) == 576))
      return skip(s, "decode floor of an attention other than DeepSeek's MLA (one 576-wide latent KV head)");
    if (!(batch > 0 && heads > 0 && latency_us > 0)) return skip(s, "decode floor without batch, heads and latency");
    row.shaped = true;
    row.axes = {batch * heads};
    row.time_s = latency_us * 1e-6;
    row.achieved = row.time_s;  // a latency family's value: seconds a call
    return add(s, acc, "mla_decode_floor", std::move(row));
  }
  if (starts_with_ci(phase, "decode")) {
    // A compute-bound configuration's rate (a headline: the kernel's FLOP/s where its query heads
    // saturate the math) anchors attention_decode_compute; top-k (sparse) decode is another
    // kernel's work and a memory-bound row's TFLOPS says nothing of the math's ceiling.
    const double heads = parse_plain(r.field(r.column("num_heads_q")));
    const bool sparse = contains_ci(r.field(r.column("kernel")), "sparse");
    if (tflops > 0 && !(gbps > 0) && !sparse && !(batch > 0) && heads > 0) {
      Row c = row;
      c.shaped = false;
      c.axes = {1};
      c.achieved = tflops * 1e12;
      c.work = c.achieved;
      c.time_s = 1;
      return add(s, acc, "attention_decode_compute", std::move(c));
    }
    // Decode is priced by its KV bytes: only a published bandwidth anchors it, and the table is
    // fitted by the bytes one call reads (bandwidth x time), so a shaped row needs its time.
    if (!(gbps > 0)) {
      return skip(s, sparse ? "sparse (top-k) decode given in TFLOPS only" : "decode given in TFLOPS only (no bandwidth)");
    }
    const double context = parse_plain(r.field(r.column("seqlen_kv")));
    const double latency_us = parse_plain(r.field(r.column("latency_us")));
    row.shaped = batch > 0 && context > 0;
    if (row.shaped && !(latency_us > 0)) return skip(s, "decode shape without a latency (no call size)");
    row.axes = {row.shaped ? batch : 1, row.shaped ? context : 1};
    row.achieved = gbps * 1e9;
    row.time_s = row.shaped ? latency_us * 1e-6 : 1.0 / row.achieved;
    row.work = row.shaped ? row.achieved * row.time_s : 1;  // a headline's size is a placeholder, as its axes
    return add(s, acc, "attention_decode", std::move(row));
  }
  if (starts_with_ci(phase, "prefill")) {
    if (dtype_bits_of(r.field(r.column("dtype"))) == 8) return skip(s, "fp8 attention (the family has no dtype axis)");
    if (!(tflops > 0)) return skip(s, "no achieved rate");
    const double seq = parse_plain(r.field(r.column("seqlen_q")));
    row.shaped = seq > 0;
    // The published sweeps hold batch x seq fixed (16k tokens), so batch is not separable
    // from seq: it is kept as a column (batch_published) and the fitted batch axis is 1.
    row.axes = {1, row.shaped ? seq : 1};
    row.extra = batch > 0 ? batch : 0;
    row.achieved = tflops * 1e12;
    row.work = row.achieved;
    row.time_s = 1;
    const std::string& causal = r.field(r.column("causal"));
    const double hdim = parse_plain(r.field(r.column("head_dim_qk")));
    // Preference marks, used when choosing rows (causal first, then head dim 128).
    row.nodes = starts_with_ci(causal, "yes") ? 1 : 0;
    row.gpus = hdim;
    return add(s, acc, "attention_prefill", std::move(row));
  }
  skip(s, "phase is not prefill or decode (training)");
}

void Importer::collective_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row) {
  const std::string& op = r.field(r.column("op"));
  if (!starts_with_ci(op, "all_reduce")) return skip(s, "op without a message-size curve (DeepEP dispatch/combine)");
  const double gpus = parse_plain(r.field(r.column("gpus"))), nodes = parse_plain(r.field(r.column("nodes")));
  const double size = parse_plain(r.field(r.column("message_bytes")));
  if (!(gpus > 1 && nodes >= 1 && size > 0)) return skip(s, "no message size or group");
  const double latency_us = parse_plain(r.field(r.column("latency_us")));
  const double busbw = parse_plain(r.field(r.column("busbw_GBps")));
  const double bus_bytes = 2 * (gpus - 1) / gpus * size;  // nccl-tests all-reduce bus bytes
  double achieved = 0;
  if (latency_us > 0) {
    achieved = bus_bytes / (latency_us * 1e-6);  // unrounded busbw, defined at every size
  } else if (busbw > 0) {
    achieved = busbw * 1e9;
  } else {
    return skip(s, "no latency or bus bandwidth");
  }
  const double peak = nodes > 1 ? scale_out_per_gpu_Bps(acc) : accelerator(acc)->scale_up_bw_Bps;
  if (!(peak > 0)) return skip(s, "no datasheet link bandwidth");
  row.axes = {size};
  row.nodes = nodes;
  row.gpus = gpus;
  row.achieved = achieved;
  row.work = bus_bytes;
  row.time_s = bus_bytes / achieved;
  const std::string family = row.file == "custom_all_reduce.csv" ? "custom_all_reduce" : "nccl_all_reduce";
  add(s, acc, family, std::move(row));
}

void Importer::memory_row(const core::CsvReader& r, ImportFileSummary& s, const std::string& acc, Row row) {
  const std::string& test = r.field(r.column("test"));
  if (!starts_with_ci(test, "HBM stream")) return skip(s, "host-link or peer copy (not an HBM stream)");
  const double tbps = parse_plain(r.field(r.column("achieved_TBps")));
  const double gbps = parse_plain(r.field(r.column("achieved_GBps")));
  const double rate = tbps > 0 ? tbps * 1e12 : gbps > 0 ? gbps * 1e9 : 0;
  if (!(rate > 0)) return skip(s, "no achieved rate");
  const double buffer = parse_plain(r.field(r.column("buffer_bytes")));
  row.axes = {buffer > 0 ? buffer : kBabelStreamDefaultBytes};
  row.achieved = rate;
  row.work = row.axes[0];
  row.time_s = row.work / rate;
  add(s, acc, "mem_read", std::move(row));
}

void Importer::read_device_files() {
  if (measured_dir_.empty()) return;
  if (!fs::is_directory(measured_dir_))
    throw core::Error(core::SourceLocation{measured_dir_, 0, "--measured"}, "not a folder of device calibration files");
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(measured_dir_)) {
    if (e.is_regular_file() && e.path().extension() == ".h5") paths.push_back(e.path());
  }
  std::sort(paths.begin(), paths.end());
  const auto hashes = provenance_hashes(measured_dir_);
  const auto anchors = load_device_run_anchors(measured_dir_);
  for (const fs::path& path : paths) {
    const std::string name = path.filename().string();
    const CalibrationFile f = read_calibration_file(path.string());
    ImportFileSummary summary;
    summary.file = name;
    const auto attr = [&](const char* k) {
      const auto it = f.attributes.find(k);
      return it == f.attributes.end() ? std::string() : it->second;
    };
    const std::string device = attr("device"), acc = map_device_name(device);
    // What wrote the file, as its command line names it (every calibration file records one), the
    // program without the folder it ran from on the device.
    std::string program = attr("command_line");
    if (const std::size_t space = program.find(' '), slash = program.rfind('/', space); slash != std::string::npos)
      program.erase(0, slash + 1);
    const auto listed = anchors.find(name);
    const std::vector<std::string> take = listed == anchors.end() ? std::vector<std::string>{} : listed->second;
    for (const auto& [family, t] : f.tables) {
      summary.rows += t.rows();
      if (acc.empty() || accelerator(acc) == nullptr) {
        summary.skipped["device maps to no catalog accelerator"] += t.rows();
        out_.unmapped_gpus[device] += t.rows();
        continue;
      }
      if (std::find(take.begin(), take.end(), family) == take.end()) {
        summary.skipped[family + ": a check, not an anchor (anchors.yaml)"] += t.rows();
        continue;
      }
      const KernelFamily& fam = kernel_family(family);
      for (std::size_t i = 0; i < t.rows(); ++i) {
        Row row;
        row.gpu = device;
        row.quality = "measured_here";
        row.source = program + " on " + device + " (" + attr("driver") + "; " + attr("date") + ")";
        row.file = name;
        row.impl = implementation_of_program(program);
        row.line = static_cast<int>(i) + 1;
        for (const std::string& a : fam.axes) row.axes.push_back(t.column(a)[i]);
        row.achieved = t.column(fam.achieved_column)[i];
        row.time_s = t.column("time_s")[i];
        if (!fam.work_column.empty()) row.work = t.column(fam.work_column)[i];
        if (fam.per_dtype) {  // the GEMM families: the same test as the published rows
          row.dtype_bits = t.column("dtype_bits")[i];
          row.scale_bytes = weight_scale_bytes(t, i);
          const std::string why =
              gemm_not_a_measurement(*accelerator(acc), row.dtype_bits, row.work, gemm_row_bytes(t, i), row.achieved);
          if (!why.empty()) {
            skip(summary, why);
            continue;
          }
        }
        add(summary, acc, family, std::move(row));
      }
    }
    FileInfo& info = files_[name];
    info.shown = shown_measured_dir_ + "/" + name;
    info.rows = summary.rows;
    info.bytes = fs::file_size(path);
    if (const auto it = hashes.find(name); it != hashes.end() && it->second.first == info.bytes) info.sha256 = it->second.second;
    out_.files.push_back(std::move(summary));
  }
}

// NOLINTNEXTLINE(performance-unnecessary-value-param): the signature every *_row handler shares (read_file)
void Importer::overhead_row(const core::CsvReader&, ImportFileSummary& s, const std::string&, Row) {
  // Every datacenter launch row is a secondary blog figure (filtered above); nothing else
  // here is a per-kernel floor of a catalog accelerator.
  skip(s, "not a per-kernel launch floor");
}

CalibrationFile Importer::build_file(const std::string& acc, const std::map<std::string, std::vector<Row>>& families,
                                     const std::string& profile_dir) const {
  const hw::Accelerator& a = *accelerator(acc);
  CalibrationFile f;
  f.path = (fs::path(profile_dir) / (acc + ".h5")).string();
  f.attributes = {{"backend", "published"},
                  {"device", a.display_name.empty() ? a.name : a.display_name},
                  {"accelerator", a.name},
                  {"driver", "as published (see each table's sources)"},
                  {"clocks", "as published"},
                  {"date", "published measurements (see each table's sources)"},
                  {"command_line", "agentsim calibrate import-published"},
                  {"mode", "published"},
                  {"peak_method", "datasheet: achieved / the catalog accelerator's dense peak for the dtype "
                                  "(HBM bandwidth; scale-up or per-GPU scale-out bandwidth for collectives)"}};
  for (const auto& entry : families) {
    const auto& family = entry.first;
    const auto& all_rows = entry.second;  // named references: clang 14 cannot capture structured bindings
    const KernelFamily& fam = kernel_family(family);
    // Shaped rows only, unless the accelerator has none for this family (then the headline).
    std::vector<Row> rows;
    const bool any_shaped = std::any_of(all_rows.begin(), all_rows.end(), [](const Row& r) { return r.shaped; });
    for (const Row& r : all_rows) {
      if (r.shaped || !any_shaped) rows.push_back(r);
    }
    if (family == "attention_prefill") {
      // Serving prefill is causal: causal rows where published, then head dim 128 where published.
      if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.nodes == 1; }))
        std::erase_if(rows, [](const Row& r) { return r.nodes != 1; });
      if (std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.gpus == 128; }))
        std::erase_if(rows, [](const Row& r) { return r.gpus != 128; });
    }
    // Several libraries at one shape: the best (what a tuned engine runs).
    std::map<std::vector<double>, Row> best;
    for (const Row& r : rows) {
      std::vector<double> key = r.axes;
      key.push_back(r.dtype_bits);
      if (is_all_reduce(family)) key.push_back(r.nodes);
      auto [it, inserted] = best.emplace(key, r);
      // The fastest: the highest rate, or for a latency family the fewest seconds.
      const bool faster = fam.quantity == Quantity::kLatency ? r.achieved < it->second.achieved
                                                              : r.achieved > it->second.achieved;
      if (!inserted && faster) it->second = r;
    }
    MeasurementTable t;
    t.family = family;
    for (const auto& [key, r] : best) {
      std::vector<std::pair<std::string, double>> v;
      for (std::size_t i = 0; i < fam.axes.size(); ++i) v.emplace_back(fam.axes[i], r.axes[i]);
      if (fam.per_dtype) v.emplace_back("dtype_bits", r.dtype_bits);
      if (family == "gemm" || family == "grouped_gemm") v.emplace_back("weight_scale_bytes", r.scale_bytes);
      if (is_all_reduce(family)) {
        v.emplace_back("nodes", r.nodes);
        v.emplace_back("gpus", r.gpus);
      }
      if (family == "attention_prefill") v.emplace_back("batch_published", r.extra);
      if (!fam.work_column.empty()) v.emplace_back(fam.work_column, r.work);
      v.emplace_back(fam.achieved_column, r.achieved);
      v.emplace_back("time_s", r.time_s);
      v.emplace_back("held_out", 0);
      v.emplace_back("source_line", r.line);
      t.add_row(v);
    }
    // Provenance, per subset the fitter splits on (dtype, node count) and for the whole table.
    // Per source file (name order), its rows and hash and the lines (table rows) kept from it.
    auto describe = [&](auto keep) {
      std::set<std::string> sources, qualities, gpus;
      std::map<std::string, std::set<int>> lines;  // file -> lines
      std::map<std::string, std::size_t> shapes;   // file -> kept shapes
      for (const auto& [key, r] : best) {
        if (!keep(r)) continue;
        ++shapes[r.file];
        sources.insert(r.source);
        qualities.insert(r.quality);
        gpus.insert(r.gpu);
        lines[r.file].insert(r.line);
      }
      std::string s;
      for (const auto& [file, ls] : lines) {
        const FileInfo& info = files_.at(file);
        s += (s.empty() ? "" : "; ") + info.shown + " (" + std::to_string(info.rows) + " rows, " +
             (info.sha256.empty() ? std::string("sha256 not in PROVENANCE.md") : "sha256 " + info.sha256) +
             "): " + std::to_string(shapes[file]) + " shapes from " + (file.ends_with(".h5") ? "table rows" : "lines");
        for (int l : ls) s += " " + std::to_string(l);
      }
      s += "; quality " + core::join_names(std::vector<std::string>(qualities.begin(), qualities.end()));
      s += "; gpus as named: " + core::join_names(std::vector<std::string>(gpus.begin(), gpus.end()));
      s += "; sources: ";
      bool first = true;
      for (const std::string& src : sources) {
        s += (first ? "" : " | ") + src;
        first = false;
      }
      return s;
    };
    // Where a sibling lent rows below this accelerator's own sizes: whose, and below what.
    auto lent = [&](auto keep) {
      std::string sib;
      const std::size_t axis = lent_axis(family);
      double edge = 0;
      for (const auto& [key, r] : best) {
        if (!keep(r)) continue;
        if (!r.borrowed_from.empty()) sib = r.borrowed_from;
        else if (r.scaled_from.empty() && (edge == 0 || r.axes[axis] < edge)) edge = r.axes[axis];
      }
      std::string scaled;
      for (const auto& [key, r] : best) {
        if (keep(r) && !r.scaled_from.empty()) scaled = r.scaled_from;
      }
      std::string out;
      if (!sib.empty()) {
        char size[32];
        std::snprintf(size, sizeof size, "%.6g", edge);
        out = sib + " below " + fam.axes[axis] + " " + size;
      }
      if (!scaled.empty()) out += (out.empty() ? "" : "; ") + scaled;
      return out;
    };
    t.attributes["provenance"] = describe([](const Row&) { return true; });
    // The kernel implementations the kept rows timed (", " between several).
    auto impls = [&](auto keep) {
      std::set<std::string> ids;
      for (const auto& [key, r] : best) {
        if (keep(r)) ids.insert(r.impl.empty() ? std::string("unnamed") : r.impl);
      }
      std::string out;
      for (const std::string& id : ids) out += (out.empty() ? "" : ", ") + id;
      return out;
    };
    t.attributes["implementation"] = impls([](const Row&) { return true; });
    // Every file a kept row came from, in name order ("; " between files).
    std::set<std::string> from;
    for (const auto& [key, r] : best) from.insert(r.file);
    for (const std::string& file : from) {
      const FileInfo& info = files_.at(file);
      const bool more = t.attributes.contains("source_file");
      t.attributes["source_file"] += (more ? "; " : "") + info.shown;
      t.attributes["source_rows"] += (more ? "; " : "") + std::to_string(info.rows);
      t.attributes["source_sha256"] += (more ? "; " : "") + info.sha256;
    }
    std::set<std::string> q;
    for (const auto& [key, r] : best) q.insert(r.quality);
    t.attributes["quality_levels"] = core::join_names(std::vector<std::string>(q.begin(), q.end()));
    // What the kept rows are: this repository's device runs, published measurements, or both.
    const bool device_rows = std::any_of(from.begin(), from.end(), [](const std::string& name) { return name.ends_with(".h5"); });
    const bool published_rows = std::any_of(from.begin(), from.end(), [](const std::string& name) { return !name.ends_with(".h5"); });
    const std::string measured_here = "measured on the device by this repository's calibration scripts (calibration/data/measured)";
    const std::string published = "published measurements; several libraries at one shape: the fastest";
    t.attributes["kernel"] = device_rows && published_rows ? measured_here + "; " + published
                             : device_rows                 ? measured_here
                                                           : published;
    char buf[64];
    if (fam.per_dtype) {
      std::set<double> bits;
      for (const auto& [key, r] : best) bits.insert(r.dtype_bits);
      for (double b : bits) {
        const std::string dt = dtype_name(b);
        std::snprintf(buf, sizeof buf, "%.17g", a.peak_flops.at(dtype_of_bits(b)));
        t.attributes["peak_" + dt] = buf;
        t.attributes["peak_source_" + dt] = "datasheet: " + a.name + " dense " + dt + " peak (hardware catalog)";
        t.attributes["provenance_" + dt] = describe([b](const Row& r) { return r.dtype_bits == b; });
        t.attributes["implementation_" + dt] = impls([b](const Row& r) { return r.dtype_bits == b; });
        if (const std::string x = lent([b](const Row& r) { return r.dtype_bits == b; }); !x.empty())
          t.attributes["extended_from_" + dt] = x;
      }
    } else if (is_all_reduce(family)) {
      std::set<double> node_counts;
      for (const auto& [key, r] : best) node_counts.insert(r.nodes);
      for (double nn : node_counts) {
        const std::string key = std::to_string(static_cast<long long>(nn)) + "node";
        const double peak = nn > 1 ? scale_out_per_gpu_Bps(acc) : a.scale_up_bw_Bps;
        std::snprintf(buf, sizeof buf, "%.17g", peak);
        t.attributes["peak_" + key] = buf;
        t.attributes["implementation_" + key] = impls([nn](const Row& r) { return r.nodes == nn; });
        t.attributes["peak_source_" + key] =
            nn > 1 ? "datasheet: per-GPU scale-out bandwidth (NICs x NIC bandwidth / GPUs) of " + a.name + "'s system"
                   : "datasheet: " + a.name + " scale-up bandwidth per direction";
        if (const std::string x = lent([nn](const Row& r) { return r.nodes == nn; }); !x.empty())
          t.attributes["extended_from_" + key] = x;
      }
    } else if (fam.quantity != Quantity::kLatency) {  // a latency family's values are seconds: no peak
      std::snprintf(buf, sizeof buf, "%.17g", a.hbm_bw_Bps);
      t.attributes["peak"] = buf;
      t.attributes["peak_source"] = "datasheet: " + a.name + " HBM bandwidth (hardware catalog)";
      if (family == "attention_prefill" || family == "attention_decode_compute") {
        std::snprintf(buf, sizeof buf, "%.17g", a.peak_flops_for(hw::DType::kBf16));
        t.attributes["peak"] = buf;
        t.attributes["peak_source"] = "datasheet: " + a.name + " dense bf16 peak (hardware catalog)";
      }
    }
    static const std::map<std::string, std::string> monotone = {
        {"gemm", "m:+,n:+,k:+"}, {"attention_decode", "kv_bytes:+"},
        {"attention_prefill", "seq:+"}, {"mem_read", "size_bytes:+"}, {"nccl_all_reduce", "size_bytes:+"},
        {"custom_all_reduce", "size_bytes:+"}};
    if (const auto it = monotone.find(family); it != monotone.end()) t.attributes["monotone"] = it->second;
    if (family == "grouped_gemm") {
      // Expert GEMMs are fitted as roofline fractions (kernel_family.hpp), so their weight stream
      // is priced at the measured kernel's rate: the published rows are MoE-sized (30-120 MB of
      // expert weights per call, 10-40 us at HBM peak), bandwidth measurements well above launch
      // floors. Dense GEMM rows stay FLOP efficiencies: their small-M rows (2-30 MB) take 5-7 us
      // for 1-4 us of transfer, launch-floor dominated, so they say nothing about bandwidth.
      std::snprintf(buf, sizeof buf, "%.17g", a.hbm_bw_Bps);
      t.attributes["hbm_bw_Bps"] = buf;
    }
    f.tables[family] = std::move(t);
  }
  return f;
}

void Importer::take_same_die_tables(std::map<std::string, EfficiencyProfile>& measured) {
  const std::map<std::string, EfficiencyProfile> original = measured;
  for (const hw::Accelerator& a : accs_) {
    for (const auto& [name, sib] : a.kernel_tables_from) {
      const core::SourceLocation where{"accelerator catalog entry '" + a.name + "'", 0, "kernel_tables_from." + name};
      if (is_collective(name))
        throw core::Error(where, "a collective depends on the system's fabric, not the die; expected a kernel table");
      // The table name: a kernel family, then "_<dtype>" for per-dtype families, then
      // "@<implementation>" for one implementation's table.
      const std::string impl = table_implementation(name);
      if (!is_op_table(base_table(name)) || (!impl.empty() && find_kernel_implementation(impl) == nullptr)) {
        throw core::Error(where, "'" + name + "' is not a profile table name (a kernel family such as gemm, then _fp4, _fp8, _bf16 or _fp32 where it has dtypes, then @ and a kernel implementation for one implementation's table)");
      }
      if (accelerator(sib) == nullptr) throw core::Error(where, "no accelerator '" + sib + "' in the catalog");
      // Where this import measured no such table for the sibling (a reduced kernel directory), the
      // rule cannot apply: the accelerator keeps its own fit, or the usual derivation.
      const auto mp = original.find(sib);
      if (mp == original.end() || !mp->second.tables.contains(name)) continue;
      const FittedTable& src = mp->second.tables.at(name);
      const auto own = original.find(a.name);
      const FittedTable* own_table = own == original.end() || !own->second.tables.contains(name) ? nullptr : &own->second.tables.at(name);
      std::optional<FittedTable> t =
          derived_table(a, sib, src,
                        "the same die; " + a.name + "'s catalog entry takes this table from it (kernel_tables_from)" +
                            (own_table == nullptr ? std::string() : ", " + a.name + "'s own rows kept as a check"));
      if (!t) throw core::Error(where, a.name + " has no datasheet peak for table '" + name + "'");
      if (own_table != nullptr) {
        const double bits = dtype_bits_of(src.dtype);  // 0 for families without dtypes
        if (impl.empty()) {
          if (const auto m = out_.measured.find(a.name); m != out_.measured.end() && m->second.tables.contains(src.family))
            t->held_out_error = table_error(m->second.tables.at(src.family), *t, bits);
        } else if (const auto fams = own_rows_.find(a.name); fams != own_rows_.end() && fams->second.contains(src.family)) {
          // One implementation's table is checked on this accelerator's own rows of that implementation.
          std::vector<Row> rows;
          for (const Row& r : fams->second.at(src.family)) {
            if (r.impl == impl) rows.push_back(r);
          }
          if (!rows.empty()) {
            const CalibrationFile own_impl = build_file(a.name, {{src.family, rows}}, "");
            t->held_out_error = table_error(own_impl.tables.at(src.family), *t, bits);
          }
        }
        t->provenance += ". Check, " + a.name + "'s own rows: " + own_table->provenance;
      }
      out_.profiles[a.name].tables[name] = *t;
      measured[a.name].tables[name] = std::move(*t);
    }
  }
}

std::optional<FittedTable> Importer::derived_table(const hw::Accelerator& a, const std::string& sib, const FittedTable& measured,
                                                  const std::string& why) const {
  FittedTable t = measured;
  const auto [peak, how] = datasheet_peak(a, t);
  if (t.quantity != Quantity::kLatency && !(peak > 0)) return std::nullopt;
  t.derived_from = sib;
  if (is_collective(t.family) && t.axes.size() == 1 && !t.axes[0].knots.empty() && t.peak > 0 && peak > 0) {
    // Link bandwidth scales the transfer, not the sibling's latency floor (launch and
    // synchronisation): time(s) = max(sibling time(s) x its peak / this peak, the sibling's
    // fastest time at any knot), i.e. efficiency capped by that floor (n cancels in bus bytes;
    // time at knot k is proportional to knot / exp(offset)).
    EfficiencyAxis& ax = t.axes[0];
    std::size_t f = 0;
    for (std::size_t k = 1; k < ax.knots.size(); ++k) {
      if (std::log(ax.knots[k]) - ax.log_offsets[k] < std::log(ax.knots[f]) - ax.log_offsets[f]) f = k;
    }
    const double of = ax.log_offsets[f], sf = ax.knots[f], ratio = std::log(t.peak / peak);
    for (std::size_t k = 0; k < ax.knots.size(); ++k)
      ax.log_offsets[k] = std::min(ax.log_offsets[k], of + std::log(ax.knots[k] / sf) + ratio);
  }
  t.peak = peak;
  if (t.mem_bw_Bps > 0) t.mem_bw_Bps = a.hbm_bw_Bps;  // the sibling's roofline fractions on this roofline
  t.peak_source = how + (t.quantity == Quantity::kLatency ? "; seconds of " : "; efficiencies of ") + sib + "'s measured table";
  const std::string applied = t.quantity == Quantity::kLatency
                                  ? "'s measured seconds taken as " + a.name + "'s"
                                  : "'s achieved / datasheet efficiencies applied to " + a.name + "'s datasheet peak";
  t.provenance = "derived from " + sib + " table (" + why + "): " + sib + applied +
                 (is_collective(t.family) ? ", never faster than " + sib + "'s fastest measured time (its latency floor)" : "") +
                 ". " + sib + ": " + measured.provenance;
  return t;
}

std::pair<double, std::string> Importer::datasheet_peak(const hw::Accelerator& acc, const FittedTable& t) const {
  if (t.quantity == Quantity::kLatency) return {0, "none: values are seconds per operation"};
  if (is_collective(t.family)) {
    if (base_table(t.name).ends_with("_1node")) return {acc.scale_up_bw_Bps, "datasheet: " + acc.name + " scale-up bandwidth per direction"};
    return {scale_out_per_gpu_Bps(acc.name),
            "datasheet: per-GPU scale-out bandwidth (NICs x NIC bandwidth / GPUs) of " + acc.name + "'s system"};
  }
  if (t.quantity == Quantity::kMemory) return {acc.hbm_bw_Bps, "datasheet: " + acc.name + " HBM bandwidth (hardware catalog)"};
  const hw::DType d = t.dtype.empty() ? hw::DType::kBf16 : *hw::parse_dtype(t.dtype);
  const auto it = acc.peak_flops.find(d);
  if (it == acc.peak_flops.end()) return {0, ""};
  return {it->second, "datasheet: " + acc.name + " dense " + std::string(hw::to_string(d)) + " peak (hardware catalog)"};
}

void Importer::keep_largest_groups() {
  for (auto& [acc, families] : rows_) {
    for (auto& [family, rows] : families) {
      if (!is_all_reduce(family)) continue;
      std::map<double, double> largest;  // nodes -> gpus
      for (const Row& r : rows) largest[r.nodes] = std::max(largest[r.nodes], r.gpus);
      std::erase_if(rows, [&](const Row& r) {
        if (r.gpus >= largest[r.nodes]) return false;
        for (ImportFileSummary& f : out_.files) {
          if (f.file != r.file) continue;
          --f.used;
          skip(f, "a smaller group than the largest measured on as many nodes (the table has no group axis)");
        }
        return true;
      });
    }
  }
}

void Importer::extend_below_range() {
  own_rows_ = rows_;  // only measured rows are lent, never rows already borrowed
  for (auto& [acc, families] : rows_) {
    const hw::Accelerator& a = *accelerator(acc);
    for (auto& [family, rows] : families) {
      // The axis a sibling fills, below this table's smallest value: a GEMM's m, an all-reduce's
      // message, a fused MoE call's expert width n (tensor-parallel slices of every expert, at most
      // half the narrowest, where this accelerator measured only expert-parallel calls).
      const bool gemm = family == "gemm", grouped = family == "grouped_gemm";
      if (!gemm && !grouped && family != "nccl_all_reduce") continue;
      const std::size_t axis = lent_axis(family);
      // Subsets the fitter splits on: a GEMM table per dtype, an all-reduce table per node count.
      auto subset = [&](const Row& r) { return gemm || grouped ? r.dtype_bits : r.nodes; };
      std::map<double, double> edges;  // subset -> its own smallest value on the axis
      std::map<double, double> group;  // subset -> its GPUs (an all-reduce table's one group size)
      for (const Row& r : rows) {
        if (!r.shaped) continue;
        const auto [it, fresh] = edges.emplace(subset(r), r.axes[axis]);
        if (!fresh) it->second = std::min(it->second, r.axes[axis]);
        group[subset(r)] = r.gpus;
      }
      for (const auto& [sub, edge] : edges) {
        for (const std::string& sib : sibling_order(acc, accs_)) {
          // Kernels and fabrics are the vendor's own: rows are lent within a vendor only.
          const hw::Accelerator* b = accelerator(sib);
          if (b == nullptr || b->vendor != a.vendor) continue;
          // A fused-MoE kernel is its architecture's own (SGLang's Triton kernel on Hopper, TRTLLM-gen
          // on Blackwell, aiter's CK kernels on CDNA3 and asm on CDNA4): its slices are lent only
          // within an architecture. Small-M dense GEMMs (the vendor's BLAS) and collectives lend
          // across the vendor's parts.
          if (grouped && (a.architecture.empty() || b->architecture != a.architecture)) continue;
          const auto fams = own_rows_.find(sib);
          if (fams == own_rows_.end()) continue;
          const auto fam = fams->second.find(family);
          if (fam == fams->second.end()) continue;
          std::vector<const Row*> lent;
          double floor_s = 0;  // the sibling's fastest measured call in this subset (collectives)
          for (const Row& r : fam->second) {
            if (!r.shaped || subset(r) != sub) continue;
            floor_s = floor_s == 0 ? r.time_s : std::min(floor_s, r.time_s);
            // A fused MoE call lends only tensor-parallel slices: at most half this table's narrowest
            // expert (a sibling's per-GEMM rows, n = 4096 against a fused call's 6144, are not slices).
            const bool below = grouped ? r.axes[axis] <= edge / 2 : r.axes[axis] < edge;
            if (below && (gemm || grouped || r.gpus == group[sub])) lent.push_back(&r);
          }
          if (lent.empty()) continue;
          for (const Row* r : lent) {
            Row t = *r;
            t.borrowed_from = sib;
            if (gemm || grouped) {
              // The same fraction of each accelerator's roofline for this shape.
              const hw::DType d = dtype_of_bits(t.dtype_bits);
              if (!a.peak_flops.contains(d) || !b->peak_flops.contains(d)) continue;
              const double pa = a.peak_flops.at(d), pb = b->peak_flops.at(d);
              const std::vector<double>& x = t.axes;  // {m, n, k} or {groups, m, n, k}
              const double bytes = grouped ? gemm_bytes(x[0], x[1], x[2], x[3], t.dtype_bits, t.scale_bytes)
                                           : gemm_bytes(1, x[0], x[1], x[2], t.dtype_bits, t.scale_bytes);
              const double roof_a = std::max(t.work / pa, bytes / a.hbm_bw_Bps);
              const double roof_b = std::max(t.work / pb, bytes / b->hbm_bw_Bps);
              t.time_s = r->time_s * roof_a / roof_b;
            } else {
              // Link bandwidth scales the transfer, never below the sibling's latency floor.
              const double pa = t.nodes > 1 ? scale_out_per_gpu_Bps(acc) : a.scale_up_bw_Bps;
              const double pb = t.nodes > 1 ? scale_out_per_gpu_Bps(sib) : b->scale_up_bw_Bps;
              if (!(pa > 0 && pb > 0)) continue;
              t.time_s = std::max(r->time_s * pb / pa, floor_s);
            }
            t.achieved = t.work / t.time_s;
            rows.push_back(std::move(t));
          }
          break;
        }
      }
    }
  }
}

void Importer::extend_above_range() {
  for (auto& [acc, families] : rows_) {
    const auto fam = families.find("grouped_gemm");
    if (fam == families.end()) continue;
    std::vector<Row>& rows = fam->second;
    auto own = [](const Row& r) { return r.shaped && r.borrowed_from.empty() && r.scaled_from.empty(); };
    // One kernel's calls of one geometry: the file and the expert's (n, k); axis 1 is m, the routed
    // pairs per active expert.
    using Geometry = std::tuple<std::string, double, double>;
    auto geometry = [](const Row& r) { return Geometry{r.file, r.axes[2], r.axes[3]}; };
    std::set<double> dtypes;
    for (const Row& r : rows) {
      if (own(r)) dtypes.insert(r.dtype_bits);
    }
    std::vector<Row> made;
    for (double target : dtypes) {
      std::map<Geometry, double> edge;  // the target's largest m per geometry
      for (const Row& t : rows) {
        if (own(t) && t.dtype_bits == target) edge[geometry(t)] = std::max(edge[geometry(t)], t.axes[1]);
      }
      for (const auto& [g, top] : edge) {
        struct Match {
          double source = 0, ratio = 0, lo = 0, hi = 0;
          std::size_t shared = 0;
        } best;
        for (double source : dtypes) {
          if (source == target) continue;
          std::vector<double> v;  // time ratios target / source at identical shapes
          for (const Row& t : rows) {
            if (!own(t) || t.dtype_bits != target || geometry(t) != g) continue;
            for (const Row& u : rows) {
              if (own(u) && u.dtype_bits == source && u.file == t.file && u.axes == t.axes && u.time_s > 0)
                v.push_back(t.time_s / u.time_s);
            }
          }
          if (v.size() < 3 || v.size() <= best.shared) continue;
          std::sort(v.begin(), v.end());
          if (v.back() > 1.25 * v.front()) continue;  // the two dtypes do not track each other
          const double median = v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
          best = {source, median, v.front(), v.back(), v.size()};
        }
        if (best.shared == 0) continue;
        char note[256];
        std::snprintf(note, sizeof note,
                      "%s above m %.6g (its times x %.4g, the median %s/%s time over %zu shared shapes of %s, "
                      "%.4g-%.4g)",
                      dtype_name(best.source).c_str(), top, best.ratio, dtype_name(target).c_str(),
                      dtype_name(best.source).c_str(), best.shared, std::get<0>(g).c_str(), best.lo, best.hi);
        // The calls stand for the target format's: its block scales, as its own rows state them.
        double target_scales = 0;
        for (const Row& u : rows) {
          if (own(u) && u.dtype_bits == target && geometry(u) == g) target_scales = u.scale_bytes;
        }
        for (const Row& u : rows) {
          if (!own(u) || u.dtype_bits != best.source || geometry(u) != g || !(u.axes[1] > top)) continue;
          Row t = u;
          t.dtype_bits = target;
          t.scale_bytes = target_scales;
          t.time_s = u.time_s * best.ratio;
          t.achieved = t.work / t.time_s;
          t.scaled_from = note;
          made.push_back(std::move(t));
        }
      }
    }
    for (Row& r : made) rows.push_back(std::move(r));
  }
}

PublishedImport Importer::run(const std::string& profile_dir) {
  read_file("gemm.csv", &Importer::gemm_row);
  read_file("fused_moe.csv", &Importer::gemm_row);
  read_file("aiter_tuned.csv", &Importer::gemm_row);
  read_file("attention.csv", &Importer::attention_row);
  read_file("collectives.csv", &Importer::collective_row);
  read_file("custom_all_reduce.csv", &Importer::collective_row);
  read_file("memory.csv", &Importer::memory_row);
  read_file("overheads.csv", &Importer::overhead_row);
  read_device_files();
  keep_largest_groups();
  extend_below_range();
  extend_above_range();

  for (const auto& [acc, families] : rows_) {
    // The profile is fitted on the rows with any a sibling lent; the calibration file written
    // beside it holds this accelerator's own measurements only.
    EfficiencyProfile p = fit_profile(build_file(acc, families, profile_dir));
    out_.measured[acc] = build_file(acc, own_rows_.at(acc), profile_dir);
    // One table per kernel implementation as well ("<table>@<id>"), from this accelerator's own
    // rows of it (and its other dtypes' calls of the same kernel, extend_above_range), never a
    // sibling's rows of another implementation: what an engine that runs that kernel selects.
    std::map<std::string, std::map<std::string, std::vector<Row>>> by_impl;  // impl -> family -> rows
    for (const auto& [family, rows] : families) {
      for (const Row& r : rows) {
        if (r.borrowed_from.empty() && !r.impl.empty()) by_impl[r.impl][family].push_back(r);
      }
    }
    for (const auto& [impl, fams] : by_impl) {
      EfficiencyProfile fitted = fit_profile(build_file(acc, fams, profile_dir));
      for (auto& [name, t] : fitted.tables) {
        const std::string key = implementation_table(name, impl);
        t.name = key;
        t.implementation = impl;
        p.tables[key] = std::move(t);
      }
    }
    out_.profiles[acc] = std::move(p);
  }
  // Every accelerator gets a profile: measured tables, then the tables of its nearest
  // measured siblings that it lacks (same efficiencies, its own datasheet peak).
  std::set<std::string> table_names;
  std::set<std::string> impl_table_names;  // "<table>@<implementation>"
  for (const auto& [acc, p] : out_.profiles) {
    for (const auto& [name, t] : p.tables) (table_implementation(name).empty() ? table_names : impl_table_names).insert(name);
  }
  std::map<std::string, EfficiencyProfile> measured_profiles = out_.profiles;
  take_same_die_tables(measured_profiles);
  for (const hw::Accelerator& a : accs_) {
    EfficiencyProfile& p = out_.profiles[a.name];
    const bool any_measured = out_.measured.contains(a.name);
    p.device = a.display_name.empty() ? a.name : a.display_name;
    p.backend = "published";
    p.source = any_measured ? (fs::path(profile_dir) / (a.name + ".h5")).string() : "none (every table derived)";
    p.calibration_date = "published measurements (see each table's provenance)";
    for (const std::string& name : table_names) {
      if (p.tables.contains(name)) continue;
      for (const std::string& sib : sibling_order(a.name, accs_)) {
        const auto mp = measured_profiles.find(sib);
        if (mp == measured_profiles.end()) continue;
        const auto mt = mp->second.tables.find(name);
        if (mt == mp->second.tables.end()) continue;
        // Collectives depend on the vendor's fabric and library, a kernel floor on the vendor's
        // kernel: never derived across vendors.
        if (vendor_specific(mt->second.family) && accelerator(sib) != nullptr && accelerator(sib)->vendor != a.vendor)
          continue;
        // A table the sibling took from its own same-die sibling is derived from that measurement.
        const std::string from = mt->second.derived_from.empty() ? sib : mt->second.derived_from;
        const FittedTable& src = from == sib ? mt->second : measured_profiles.at(from).tables.at(name);
        std::optional<FittedTable> t = derived_table(a, from, src, "no anchor rows for " + a.name);
        if (!t) break;  // e.g. fp4 on an accelerator without fp4
        p.tables[name] = std::move(*t);
        break;
      }
    }
    // An implementation's table this accelerator has no rows for: the same implementation on its
    // nearest measured sibling of the same vendor (a kernel library is its vendor's software),
    // against this accelerator's datasheet peaks; never another implementation's rows.
    for (const std::string& name : impl_table_names) {
      if (p.tables.contains(name)) continue;
      for (const std::string& sib : sibling_order(a.name, accs_)) {
        const hw::Accelerator* b = accelerator(sib);
        if (b == nullptr || b->vendor != a.vendor) continue;
        const auto mp = measured_profiles.find(sib);
        if (mp == measured_profiles.end()) continue;
        const auto mt = mp->second.tables.find(name);
        if (mt == mp->second.tables.end() || !mt->second.derived_from.empty()) continue;
        std::optional<FittedTable> t = derived_table(
            a, sib, mt->second, "no " + table_implementation(name) + " rows for " + a.name + "; its nearest measured sibling's");
        if (!t) break;
        p.tables[name] = std::move(*t);
        break;
      }
    }
  }
  return out_;
}

}  // namespace

const std::vector<std::string>& anchor_quality_levels() {
  static const std::vector<std::string> levels = {"primary",           "primary_headline",       "primary_ambiguous",
                                                  "primary_statement", "secondary_excerpt",      "secondary_transcription"};
  return levels;
}

std::string map_published_gpu(const std::string& gpu_family, const std::string& gpu) {
  // By gpu_family (PROVENANCE.md: a grouping added for filtering); exact names only.
  static const std::map<std::string, std::string> by_family = {
      {"H100 SXM", "h100-sxm"},
      // Export H100: same SXM5 compute and HBM (its NVLink is cut to 400 GB/s, so its
      // collectives are kept apart: they are DeepEP rows without message sizes anyway).
      {"H800", "h100-sxm"},
      {"H200", "h200"},
      {"A100", "a100-sxm-80gb"},
      {"B200", "b200"},
      {"B300", "b300"},
      {"GB200", "gb200"},
      // vLLM PRs say only "SM100"; B200 and GB200 share the die, B200 is the HGX part.
      {"B200/GB200 (SM100, model not named)", "b200"},
      {"MI300X", "mi300x"},
      {"MI325X", "mi325x"},
      {"MI355X", "mi355x"},
  };
  (void)gpu;
  const auto it = by_family.find(gpu_family);
  return it == by_family.end() ? "" : it->second;
}

std::vector<std::string> sibling_order(const std::string& accelerator, const std::vector<hw::Accelerator>& all) {
  // Same architecture first (scaled by datasheet peaks), then the nearest generation,
  // then across vendors as the last resort (said so in every derived table).
  static const std::map<std::string, std::vector<std::string>> order = {
      {"a100-sxm-80gb", {"h100-sxm", "h200"}},
      {"h100-sxm", {"h200", "b200", "gb200", "a100-sxm-80gb"}},
      {"h200", {"h100-sxm", "b200", "gb200", "a100-sxm-80gb"}},
      {"b200", {"gb200", "b300", "gb300", "h200", "h100-sxm"}},
      {"b300", {"b200", "gb200", "gb300", "h200", "h100-sxm"}},
      {"gb200", {"b200", "gb300", "b300", "h200", "h100-sxm"}},
      {"gb300", {"gb200", "b300", "b200", "h200", "h100-sxm"}},
      {"mi300x", {"mi325x", "mi355x", "h200", "h100-sxm", "b200", "gb200"}},
      {"mi325x", {"mi300x", "mi355x", "h200", "h100-sxm", "b200", "gb200"}},
      {"mi355x", {"mi300x", "mi325x", "b200", "gb200", "h200", "h100-sxm"}},
  };
  std::vector<std::string> out;
  if (const auto it = order.find(accelerator); it != order.end()) out = it->second;
  // Accelerators outside the list: same vendor first, then the rest, in catalog order.
  std::string vendor;
  for (const auto& a : all) {
    if (a.name == accelerator) vendor = a.vendor;
  }
  for (int pass = 0; pass < 2; ++pass) {
    for (const auto& a : all) {
      if (a.name == accelerator || std::find(out.begin(), out.end(), a.name) != out.end()) continue;
      if ((a.vendor == vendor) == (pass == 0)) out.push_back(a.name);
    }
  }
  return out;
}

PublishedImport import_published(const std::string& kernels_dir, const std::vector<hw::Accelerator>& accelerators,
                                 const std::vector<hw::System>& systems, const std::string& profile_dir,
                                 const std::string& measured_dir) {
  Importer im(kernels_dir, measured_dir, accelerators, systems);
  return im.run(profile_dir);
}

void write_published_import(const PublishedImport& r, const std::string& dir) {
  fs::create_directories(dir);
  for (const auto& [acc, f] : r.measured) write_calibration_file((fs::path(dir) / (acc + ".h5")).string(), f);
  for (const auto& [acc, p] : r.profiles) {
    core::write_file_atomically((fs::path(dir) / (acc + ".yaml")).string(),
                                "# Written by `agentsim calibrate import-published` from calibration/data/published/kernels/\n"
                                "# (do not edit: rerun the command). Tables with derived_from have no anchor rows for this\n"
                                "# accelerator: they are the named sibling's efficiencies against this one's datasheet peak.\n" +
                                    to_yaml(p));
  }
}

std::string import_summary(const PublishedImport& r) {
  std::string s;
  char buf[512];
  s += "rows used / skipped per file (quality anchors: " + core::join_names(anchor_quality_levels()) + "):\n";
  for (const auto& f : r.files) {
    std::size_t skipped = 0;
    for (const auto& [why, n] : f.skipped) skipped += n;
    std::snprintf(buf, sizeof buf, "  %-16s %4zu rows: %4zu used, %4zu skipped\n", f.file.c_str(), f.rows, f.used, skipped);
    s += buf;
    for (const auto& [why, n] : f.skipped) {
      std::snprintf(buf, sizeof buf, "      %4zu %s\n", n, why.c_str());
      s += buf;
    }
  }
  std::size_t unmapped = 0;
  for (const auto& [gpu, n] : r.unmapped_gpus) unmapped += n;
  std::snprintf(buf, sizeof buf, "unmapped gpus (%zu rows skipped):\n", unmapped);
  s += buf;
  for (const auto& [gpu, n] : r.unmapped_gpus) {
    std::snprintf(buf, sizeof buf, "  %4zu %s\n", n, gpu.c_str());
    s += buf;
  }
  s += "tables per accelerator (measured | derived from):\n";
  for (const auto& [acc, p] : r.profiles) {
    std::string measured, derived;
    for (const auto& [name, t] : p.tables) {
      if (t.derived_from.empty()) {
        measured += (measured.empty() ? "" : ", ") + name;
      } else {
        derived += (derived.empty() ? "" : ", ") + name + "<-" + t.derived_from;
      }
    }
    s += "  " + acc + ": measured " + (measured.empty() ? "none" : measured) + " | derived " +
         (derived.empty() ? "none" : derived) + "\n";
  }
  return s;
}

}  // namespace agentsim::calib
