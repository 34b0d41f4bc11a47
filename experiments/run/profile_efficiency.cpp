#include "experiments/run/profile_efficiency.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "calibration/kernel_implementation.hpp"
#include "experiments/run/kernel_selection.hpp"

namespace agentsim::exp {
namespace {

// Where a table's numbers come from beyond its own measurements, for notes:
// ", derived from b200 table", ", rows of h100-sxm below m 1024".
std::string lineage(const calib::FittedTable& t) {
  return (t.derived_from.empty() ? "" : ", derived from " + t.derived_from + " table") +
         (t.extended_from.empty() ? "" : ", rows of " + t.extended_from);
}

enum Field {
  kFieldM, kFieldN, kFieldK, kFieldGroups, kFieldBatch, kFieldContext, kFieldBytes, kFieldWeightBytes, kFieldQueryHeads,
  kFieldOne
};

int field_of(const std::string& axis) {
  if (axis == "m") return kFieldM;
  if (axis == "n") return kFieldN;
  if (axis == "k") return kFieldK;
  if (axis == "groups") return kFieldGroups;
  if (axis == "batch") return kFieldBatch;
  if (axis == "context" || axis == "seq") return kFieldContext;
  if (axis == "size_bytes" || axis == "kv_bytes") return kFieldBytes;
  if (axis == "weight_bytes") return kFieldWeightBytes;
  if (axis == "query_heads") return kFieldQueryHeads;
  return kFieldOne;
}

double field_value(const serving::KernelShape& s, int f) {
  switch (f) {
    case kFieldM: return s.m;
    case kFieldN: return s.n;
    case kFieldK: return s.k;
    case kFieldGroups: return s.groups;
    case kFieldBatch: return s.batch;
    case kFieldContext: return s.context;
    case kFieldBytes: return s.bytes;
    case kFieldWeightBytes: return s.weight_bytes;
    case kFieldQueryHeads: return s.query_heads;
    default: return 1.0;
  }
}

std::size_t dtype_index(hw::DType d) {
  switch (d) {
    case hw::DType::kFp4: return 0;
    case hw::DType::kFp8: return 1;
    case hw::DType::kBf16: return 2;
    default: return 3;
  }
}

std::string fmt(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace

ProfileEfficiency::ProfileEfficiency(calib::EfficiencyProfile profile, hw::Accelerator acc, hw::Efficiency fallback,
                                     std::map<std::string, std::string> implementations)
    : profile_(std::move(profile)), acc_(std::move(acc)), fallback_(fallback), implementations_(std::move(implementations)) {
  for (hw::DType d : {hw::DType::kFp4, hw::DType::kFp8, hw::DType::kBf16, hw::DType::kFp32}) {
    const auto peak = acc_.peak_flops.find(d);
    if (peak == acc_.peak_flops.end()) continue;
    const std::string dt(hw::to_string(d));
    gemm_[dtype_index(d)] = slot("gemm_" + dt, "", peak->second);
    Slot g = slot("grouped_gemm_" + dt, "", peak->second);
    if (g.table == nullptr && gemm_[dtype_index(d)].table != nullptr) {
      // No grouped measurements: each expert's GEMM priced as a dense GEMM of its tokens.
      g = slot("gemm_" + dt, "grouped_gemm_" + dt + " not in profile: ", peak->second);
    }
    grouped_[dtype_index(d)] = std::move(g);
  }
  const auto bf16 = acc_.peak_flops.find(hw::DType::kBf16);
  if (bf16 != acc_.peak_flops.end()) {
    prefill_ = slot("attention_prefill", "", bf16->second);
    decode_compute_ = slot("attention_decode_compute", "", bf16->second);
  }
  decode_ = slot("attention_decode", "", acc_.hbm_bw_Bps);
  mem_ = slot("mem_read", "", acc_.hbm_bw_Bps);
  mla_floor_ = slot("mla_decode_floor", "", 1.0);  // seconds: no peak to rescale
}

ProfileEfficiency::Slot ProfileEfficiency::slot(const std::string& table, const std::string& prefix,
                                                double datasheet_peak) const {
  Slot s;
  // The engine's implementation of this op where the profile has its table (measured, or derived
  // from the same implementation on a sibling), else the best-of-sources table, said so.
  std::string key = table, why;
  if (const auto sel = implementations_.find(table); sel != implementations_.end()) {
    const std::string k = calib::implementation_table(table, sel->second);
    if (profile_.tables.contains(k)) {
      key = k;
    } else {
      why = " (the engine's " + sel->second + " is measured on no " + acc_.vendor + " sibling)";
    }
  }
  const auto it = profile_.tables.find(key);
  s.note = "profile has no " + table + " table; constant used";
  if (it == profile_.tables.end() || !(datasheet_peak > 0)) return s;
  const calib::FittedTable& t = it->second;
  s.table = &t;
  s.scale = t.peak / datasheet_peak;
  if (t.mem_bw_Bps > 0 && acc_.hbm_bw_Bps > 0) s.mem_scale = t.mem_bw_Bps / acc_.hbm_bw_Bps;
  const std::string derived =
      lineage(t) + (key != table ? std::string(t.derived_from.empty() ? " (measured)" : "") : why);
  s.note = prefix + key + " table" + derived;
  std::string ranges;
  for (std::size_t a = 0; a < t.axes.size() && a < s.axis.size(); ++a) {
    s.axis[a] = field_of(t.axes[a].name);
    ranges += (a ? ", " : "") + t.axes[a].name + " " + fmt(t.axes[a].knots.front()) + ".." + fmt(t.axes[a].knots.back());
  }
  s.note_extrap = prefix + key + " extrapolated (measured " + ranges + "; edge value used)" + derived;
  return s;
}

std::string ProfileEfficiency::name() const { return "profile " + profile_.source + " (" + profile_.device + ")"; }

std::size_t ProfileEfficiency::table_shape(const Slot& s, const serving::KernelShape& k,
                                           std::array<double, 4>& shape) {
  const std::size_t n = std::min(s.table->axes.size(), shape.size());
  for (std::size_t a = 0; a < n; ++a) shape[a] = std::max(1.0, field_value(k, s.axis[a]));
  return n;
}

serving::EfficiencyValue ProfileEfficiency::look(const Slot& s, const serving::KernelShape& k, double fallback,
                                                 double scale) const {
  if (s.table == nullptr) return {fallback, false, s.note};
  std::array<double, 4> shape{};
  const std::size_t n = table_shape(s, k, shape);
  const calib::EfficiencyLookup l = s.table->lookup(shape.data(), n, false);
  // The table divides its own peak; rescale to the datasheet peak the roofline uses.
  const double e = std::clamp(l.value * (scale > 0 ? scale : s.scale), 1e-6, 1.0);
  return {e, l.extrapolated, l.extrapolated ? s.note_extrap : s.note};
}

serving::EfficiencyValue ProfileEfficiency::compute(const serving::KernelShape& s) const {
  switch (s.kind) {
    case serving::KernelKind::kGemm: return look(gemm_[dtype_index(s.dtype)], s, fallback_.compute);
    case serving::KernelKind::kGroupedGemm: return look(grouped_[dtype_index(s.dtype)], s, fallback_.compute);
    case serving::KernelKind::kAttentionPrefill: return look(prefill_, s, fallback_.compute);
    // The math's ceiling where a decode call is compute-bound (dense MLA on an attention-DP rank).
    case serving::KernelKind::kAttentionDecode: return look(decode_compute_, s, fallback_.compute);
    case serving::KernelKind::kOther: break;
  }
  return {fallback_.compute, false, ""};
}

serving::EfficiencyValue ProfileEfficiency::memory(const serving::KernelShape& s) const {
  if (s.kind == serving::KernelKind::kAttentionDecode) return look(decode_, s, fallback_.memory);
  if (s.kind == serving::KernelKind::kGemm || s.kind == serving::KernelKind::kGroupedGemm) {
    // A GEMM streams its weights at the measured kernel's roofline fraction, not at a copy's.
    const Slot& g = s.kind == serving::KernelKind::kGemm ? gemm_[dtype_index(s.dtype)] : grouped_[dtype_index(s.dtype)];
    if (g.table != nullptr && g.mem_scale > 0) return look(g, s, fallback_.memory, g.mem_scale);
  }
  return look(mem_, s, fallback_.memory);
}

bool ProfileEfficiency::flat(const Slot& s, const serving::KernelShape& a, const serving::KernelShape& b) const {
  if (s.table == nullptr) return true;
  std::array<double, 4> x{}, y{};
  const std::size_t n = table_shape(s, a, x);
  table_shape(s, b, y);
  return s.table->constant_between(x.data(), y.data(), n);
}

// The slots compute() and memory() read for the kind, each flat between a and b.
bool ProfileEfficiency::constant_between(const serving::KernelShape& a, const serving::KernelShape& b) const {
  if (a.kind != b.kind || a.dtype != b.dtype) return false;
  switch (a.kind) {
    case serving::KernelKind::kGemm:
    case serving::KernelKind::kGroupedGemm: {
      const Slot& g = a.kind == serving::KernelKind::kGemm ? gemm_[dtype_index(a.dtype)] : grouped_[dtype_index(a.dtype)];
      const bool memory_from_gemm = g.table != nullptr && g.mem_scale > 0;
      return flat(g, a, b) && (memory_from_gemm || flat(mem_, a, b));
    }
    case serving::KernelKind::kAttentionPrefill: return flat(prefill_, a, b) && flat(mem_, a, b);
    case serving::KernelKind::kAttentionDecode:
      return flat(decode_, a, b) && flat(decode_compute_, a, b) && flat(mla_floor_, a, b);
    case serving::KernelKind::kOther: return flat(mem_, a, b);
  }
  return false;
}

serving::CallFloor ProfileEfficiency::launch_floor(bool graph) const {
  const calib::FittedTable* t = profile_.launch_table(graph);
  if (t == nullptr) return {};
  return {profile_.launch_floor_s(graph), false, t->name + " table" + lineage(*t)};
}

serving::CallFloor ProfileEfficiency::call_floor(const serving::KernelShape& s) const {
  if (mla_floor_.table == nullptr || !(s.query_heads > 0)) return {};
  std::array<double, 4> shape{};
  const std::size_t n = table_shape(mla_floor_, s, shape);
  const calib::EfficiencyLookup l = mla_floor_.table->lookup(shape.data(), n, false);
  return {l.value, l.extrapolated, l.extrapolated ? mla_floor_.note_extrap : mla_floor_.note};
}

CollectiveEfficiency ProfileEfficiency::collective(const std::string& op, int nodes, double bytes, int group) const {
  return table_collective("nccl_" + op + "_" + std::to_string(std::max(1, nodes)) + "node", op, bytes, group);
}

CollectiveEfficiency ProfileEfficiency::table_collective(const std::string& name, const std::string& op, double bytes,
                                                         int group) const {
  CollectiveEfficiency out;
  const auto it = profile_.tables.find(name);
  if (it == profile_.tables.end()) {
    out.note = "profile has no " + name + " table";
    return out;
  }
  const calib::FittedTable& t = it->second;
  const double x = std::max(1.0, bytes);
  const calib::EfficiencyLookup l = t.lookup(&x, 1, true);
  out.bus_bw_efficiency = l.value;
  out.peak_Bps = t.peak;
  const double n = std::max(2, group);
  const double bus_bytes = (op == "all_reduce" ? 2.0 : 1.0) * (n - 1) / n * x;
  out.time_s = bus_bytes / (l.value * t.peak);
  out.extrapolated = l.extrapolated;
  out.note = name + " table" + lineage(t) + (l.extrapolated ? " (extrapolated: " + l.note + ")" : "");
  return out;
}

serving::MeasuredCollective ProfileEfficiency::all_reduce(double bytes, int group) const {
  // The engines reduce tensor-parallel activations with their own kernels (custom_all_reduce,
  // within its measured message range: the kernel's buffer is bounded) or NCCL: the faster.
  serving::MeasuredCollective best;
  for (const std::string name : {"custom_all_reduce_1node", "nccl_all_reduce_1node"}) {
    const auto it = profile_.tables.find(name);
    if (it == profile_.tables.end() || it->second.axes.empty()) continue;
    const calib::FittedTable& t = it->second;
    const std::vector<double>& knots = t.axes.front().knots;
    if (knots.empty()) continue;
    const bool custom = t.family == "custom_all_reduce";
    if (custom && bytes > knots.back()) continue;
    // Below the smallest measured message the edge bandwidth would price a latency-bound
    // collective as free. The custom kernel's table starts at its latency floor (2 KB, one
    // launch and one barrier): a smaller message takes that message's time. NCCL's tables
    // start higher for some systems (MI325X: 4 GiB), so there the topology model prices it.
    if (!custom && bytes < knots.front()) continue;
    const CollectiveEfficiency c = table_collective(name, "all_reduce", std::max(bytes, knots.front()), group);
    if (!(c.bus_bw_efficiency > 0) || (best.time_s > 0 && !(c.time_s < best.time_s))) continue;
    best = {c.time_s, name + " table" + lineage(t)};
  }
  return best;
}

double ProfileEfficiency::scale_up_network_efficiency() const {
  const auto it = profile_.tables.find("nccl_all_reduce_1node");
  if (it == profile_.tables.end() || it->second.axes.empty()) return -1.0;
  const double x = it->second.axes.front().knots.back();
  return std::clamp(it->second.lookup(&x, 1, false).value, 1e-6, 1.0);
}

std::shared_ptr<const ProfileEfficiency> load_profile_efficiency(
    const hw::Accelerator& acc, const std::string& root, hw::Efficiency fallback, const std::string& engine,
    bool ep_across_systems, const PerTensorFp8& per_tensor, const std::map<std::string, std::string>& overrides,
    const std::map<std::string, core::SourceLocation>& overrides_at) {
  if (acc.efficiency_profile.empty()) return nullptr;
  std::filesystem::path p(acc.efficiency_profile);
  if (p.is_relative()) p = std::filesystem::path(root) / p;
  KernelSelection sel = engine.empty() ? KernelSelection{} : kernel_selection(root, engine, acc, ep_across_systems, per_tensor);
  return std::make_shared<const ProfileEfficiency>(calib::load_profile(p.string()), acc, fallback,
                                                   with_overrides(std::move(sel), overrides, overrides_at, acc));
}

}  // namespace agentsim::exp
