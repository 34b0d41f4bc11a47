#include "workloads/model/parallel_plan.hpp"

#include <algorithm>
#include <charconv>

#include "sim/core/error.hpp"

namespace agentsim::wl {

int ParallelPlan::redundant_for(int routed) const {
  if (ep <= 1 || routed <= 0) return 0;
  if (redundant_experts >= 0) return redundant_experts;
  return (ep - routed % ep) % ep;
}

int ParallelPlan::experts_per_rank(int routed) const {
  if (routed <= 0) return 0;
  const int e = std::max(1, ep);
  return (routed + redundant_for(routed) + e - 1) / e;
}

int ParallelPlan::nodes(int per_system) const {
  return per_system <= 0 ? 1 : std::max(1, (devices() + per_system - 1) / per_system);
}

std::string ParallelPlan::to_string() const {
  std::string s = "tp=" + std::to_string(tp) + ",ep=" + std::to_string(ep) + ",pp=" + std::to_string(pp) +
                  ",dp=" + std::to_string(attn_dp);
  if (redundant_experts >= 0) s += ",re=" + std::to_string(redundant_experts);
  if (!expert_all_to_all) s += ",a2a=0";
  return s;
}

ParallelPlan parse_parallel_plan(std::string_view text) {
  ParallelPlan p;
  auto fail = [&](const std::string& why) {
    return core::Error("plan '" + std::string(text) + "': " + why + " (expected e.g. tp=8,ep=8,pp=1,dp=1)");
  };
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    const size_t eq = item.find('=');
    if (eq == std::string_view::npos) throw fail("'" + std::string(item) + "' is not key=value");
    const std::string_view key = item.substr(0, eq), val = item.substr(eq + 1);
    int v = 0;
    const auto [ptr, ec] = std::from_chars(val.data(), val.data() + val.size(), v);
    const int least = key == "re" || key == "a2a" ? 0 : 1;
    const int most = key == "a2a" ? 1 : 65536;
    if (ec != std::errc() || ptr != val.data() + val.size() || v < least || v > most) {
      throw fail("'" + std::string(val) + "' is not " +
                 (key == "a2a" ? std::string("0 or 1") : std::string(least == 0 ? "a non-negative" : "a positive") + " integer"));
    }
    if (key == "tp") p.tp = v;
    else if (key == "ep") p.ep = v;
    else if (key == "pp") p.pp = v;
    else if (key == "dp") p.attn_dp = v;
    else if (key == "re") p.redundant_experts = v;
    else if (key == "a2a") p.expert_all_to_all = v == 1;
    else throw fail("unknown key '" + std::string(key) + "'; valid: tp, ep, pp, dp, re, a2a");
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (p.devices_per_stage() % p.ep != 0) throw fail("ep must divide tp x dp");
  return p;
}

}  // namespace agentsim::wl
