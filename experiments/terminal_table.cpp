#include "experiments/terminal_table.hpp"

#include <cstdio>

namespace agentsim::exp {

std::string terminal_table(const std::vector<RunResult>& runs) {
  std::string out;
  char buf[256];
  std::snprintf(buf, sizeof buf, "%8s %12s %12s %10s %10s %9s %9s %9s %8s %7s %7s\n", "agents", "out tok/s",
                "total tok/s", "agent p50", "agent p10", "TTFT p50", "TTFT p90", "TTFT p99", "requests", "hit",
                "KV occ");
  out += buf;
  std::snprintf(buf, sizeof buf, "%8s %12s %12s %10s %10s %9s %9s %9s %8s %7s %7s\n", "", "", "", "tok/s",
                "tok/s", "s", "s", "s", "", "%", "%");
  out += buf;
  for (const auto& r : runs) {
    const auto& s = r.summary;
    std::snprintf(buf, sizeof buf, "%8d %12.1f %12.1f %10.1f %10.1f %9.3f %9.3f %9.3f %8lld %7.1f %7.1f\n",
                  r.concurrency, s.output_tok_s, s.total_tok_s, s.agent_output_tok_s_p50,
                  s.agent_output_tok_s_p10, s.ttft_s_p50, s.ttft_s_p90, s.ttft_s_p99, s.requests,
                  100.0 * s.prefix_hit_rate, 100.0 * s.kv_occupancy_mean);
    out += buf;
  }
  return out;
}

}  // namespace agentsim::exp
