#include "experiments/profile_efficiency.hpp"

#include <algorithm>
#include <filesystem>

namespace agentsim::exp {

ProfileEfficiency::ProfileEfficiency(calib::EfficiencyProfile profile, hw::Accelerator acc, hw::Efficiency fallback)
    : profile_(std::move(profile)), acc_(std::move(acc)), fallback_(fallback) {}

std::string ProfileEfficiency::name() const { return "profile " + profile_.source + " (" + profile_.device + ")"; }

serving::EfficiencyValue ProfileEfficiency::look(const std::string& table, const std::map<std::string, double>& shape,
                                                 double datasheet_peak, double fallback) const {
  const auto it = profile_.tables.find(table);
  if (it == profile_.tables.end()) return {fallback, false, "profile has no " + table + " table; constant used"};
  const calib::FittedTable& t = it->second;
  std::map<std::string, double> s;
  for (const calib::EfficiencyAxis& a : t.axes) {
    const auto v = shape.find(a.name);
    s[a.name] = v == shape.end() ? 1.0 : std::max(1.0, v->second);
  }
  const calib::EfficiencyLookup l = t.lookup(s);
  // The table divides its own peak; rescale to the datasheet peak the roofline uses.
  const double e = std::clamp(l.value * t.peak / datasheet_peak, 1e-6, 1.0);
  return {e, l.extrapolated, l.extrapolated ? table + " extrapolated: " + l.note : ""};
}

serving::EfficiencyValue ProfileEfficiency::compute(const serving::KernelShape& s) const {
  const std::string dt(hw::to_string(s.dtype));
  const double peak = acc_.peak_flops_for(s.dtype);
  switch (s.kind) {
    case serving::KernelKind::kGemm: return look("gemm_" + dt, {{"m", s.m}, {"n", s.n}, {"k", s.k}}, peak, fallback_.compute);
    case serving::KernelKind::kGroupedGemm:
      return look("grouped_gemm_" + dt, {{"groups", s.groups}, {"m", s.m}, {"n", s.n}, {"k", s.k}}, peak, fallback_.compute);
    case serving::KernelKind::kAttentionPrefill:
      return look("attention_prefill", {{"batch", s.batch}, {"seq", s.context}}, peak, fallback_.compute);
    case serving::KernelKind::kAttentionDecode:
    case serving::KernelKind::kOther: break;
  }
  return {fallback_.compute, false, ""};
}

serving::EfficiencyValue ProfileEfficiency::memory(const serving::KernelShape& s) const {
  if (s.kind == serving::KernelKind::kAttentionDecode) {
    return look("attention_decode", {{"batch", s.batch}, {"context", s.context}}, acc_.hbm_bw_Bps, fallback_.memory);
  }
  return look("mem_read", {{"size_bytes", s.bytes}}, acc_.hbm_bw_Bps, fallback_.memory);
}

double ProfileEfficiency::launch_floor_s(bool graph) const {
  const auto it = profile_.tables.find(graph ? "graph_replay_latency" : "launch_latency");
  if (it == profile_.tables.end()) return -1.0;
  // Seconds per kernel in steady state: the largest measured kernel count.
  std::vector<double> shape;
  for (const calib::EfficiencyAxis& a : it->second.axes) shape.push_back(a.knots.empty() ? 1.0 : a.knots.back());
  return it->second.lookup(shape).value;
}

std::shared_ptr<const serving::KernelEfficiency> load_profile_efficiency(const hw::Accelerator& acc,
                                                                         const std::string& root,
                                                                         hw::Efficiency fallback) {
  if (acc.efficiency_profile.empty()) return nullptr;
  std::filesystem::path p(acc.efficiency_profile);
  if (p.is_relative()) p = std::filesystem::path(root) / p;
  return std::make_shared<const ProfileEfficiency>(calib::load_profile(p.string()), acc, fallback);
}

}  // namespace agentsim::exp
