#include "experiments/output/terminal_table.hpp"

#include <cstdio>

#include "experiments/output/nice_ticks.hpp"

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
    // A figure the run has none of (no request completed, no power) prints as "-", never "nan".
    std::snprintf(buf, sizeof buf, "%-12s %-10s %8d %12s %12s %10s %10s %9s %9s %9s %8lld %9s %11s %6s %6s\n",
                  r.system.c_str(), r.deployment.c_str(), r.concurrency, number_cell(s.output_tok_s, 1).c_str(),
                  number_cell(s.total_tok_s, 1).c_str(), number_cell(s.agent_output_tok_s_p50, 1).c_str(),
                  number_cell(s.agent_output_tok_s_p10, 1).c_str(), number_cell(s.ttft_s_p50, 3).c_str(),
                  number_cell(s.ttft_s_p90, 3).c_str(), number_cell(s.ttft_s_p99, 3).c_str(), s.requests,
                  number_cell(r.power.power_w * 1e-3, 1).c_str(),
                  mw > 0 ? number_cell(s.total_tok_s / mw, 0).c_str() : "-",
                  number_cell(100.0 * s.prefix_hit_rate, 1).c_str(), number_cell(100.0 * s.kv_occupancy_mean, 1).c_str());
    out += buf;
  }
  return out;
}

}  // namespace agentsim::exp
