#include "experiments/output/terminal_table.hpp"

#include <cstdio>

namespace agentsim::exp {

std::string terminal_table(const std::vector<RunResult>& runs) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-12s %-10s %8s %12s %12s %10s %10s %9s %9s %9s %8s %9s %11s %6s %6s\n", "system",
                "deployment", "agents", "out tok/s", "total tok/s", "agent p50", "agent p10", "TTFT p50", "TTFT p90",
                "TTFT p99", "requests", "power", "total/MW", "hit", "KV occ");
  out += buf;
  std::snprintf(buf, sizeof buf, "%-12s %-10s %8s %12s %12s %10s %10s %9s %9s %9s %8s %9s %11s %6s %6s\n", "", "", "", "",
                "", "tok/s", "tok/s", "s", "s", "s", "", "kW", "tok/s", "%", "%");
  out += buf;
  for (const auto& r : runs) {
    const auto& s = r.summary;
    if (!r.skipped.empty()) {
      std::snprintf(buf, sizeof buf, "%-12s %-10s %8d skipped: %.150s\n", r.system.c_str(), r.deployment.c_str(),
                    r.concurrency, r.skipped.c_str());
      out += buf;
      continue;
    }
    const double mw = r.power.power_w * 1e-6;
    std::snprintf(buf, sizeof buf, "%-12s %-10s %8d %12.1f %12.1f %10.1f %10.1f %9.3f %9.3f %9.3f %8lld %9.1f %11.0f %6.1f %6.1f\n",
                  r.system.c_str(), r.deployment.c_str(), r.concurrency, s.output_tok_s, s.total_tok_s,
                  s.agent_output_tok_s_p50, s.agent_output_tok_s_p10, s.ttft_s_p50, s.ttft_s_p90, s.ttft_s_p99,
                  s.requests, r.power.power_w * 1e-3, mw > 0 ? s.total_tok_s / mw : 0.0,
                  100.0 * s.prefix_hit_rate, 100.0 * s.kv_occupancy_mean);
    out += buf;
  }
  return out;
}

}  // namespace agentsim::exp
