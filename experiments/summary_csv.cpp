#include "experiments/summary_csv.hpp"

#include <cstdio>
#include <limits>

namespace agentsim::exp {
namespace {

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

std::string csv_text(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c == '\n' ? ' ' : c);
  return q + "\"";
}

std::string summary_csv(const std::vector<RunResult>& runs) {
  // The issue-8 contract columns first, then the skeleton's and the run's identity.
  std::string out =
      "system,deployment,concurrency,output_tok_s,total_tok_s,power_w,output_tok_s_per_mw,total_tok_s_per_mw,"
      "agents_per_mw,agent_output_tok_s_p50,agent_output_tok_s_p10,ttft_s_p50,ttft_s_p90,cache_hit_rate,"
      "input_tok_s,computed_input_tok_s,ttft_s_p99,itl_s_mean,requests,rejected,turns_truncated,steps,"
      "mean_batch_sequences,kv_capacity_tokens,window_s,provisioned_w,level,run_id,seed,bisection,skipped,"
      "prefix_hit_rate,hit_rate_hbm,hit_rate_host,hit_rate_ssd,hit_rate_remote,evictions,bytes_loaded,bytes_stored,"
      "preemptions,kv_transfer_bytes,kv_occupancy_mean,kv_occupancy_peak\n";
  for (const auto& r : runs) {
    const auto& s = r.summary;
    const double mw = r.power.power_w * 1e-6;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    const double hit = s.input_tok_s > 0 ? (s.input_tok_s - s.computed_input_tok_s) / s.input_tok_s : nan;
    out += r.system + "," + r.deployment + "," + std::to_string(r.concurrency) + "," + num(s.output_tok_s) + "," +
           num(s.total_tok_s) + "," + num(r.power.power_w) + "," + num(mw > 0 ? s.output_tok_s / mw : nan) + "," +
           num(mw > 0 ? s.total_tok_s / mw : nan) + "," + num(mw > 0 ? r.level / mw : nan) + "," +
           num(s.agent_output_tok_s_p50) + "," + num(s.agent_output_tok_s_p10) + "," + num(s.ttft_s_p50) + "," +
           num(s.ttft_s_p90) + "," + num(hit) + "," + num(s.input_tok_s) + "," + num(s.computed_input_tok_s) + "," +
           num(s.ttft_s_p99) + "," + num(s.itl_s_mean) + "," + std::to_string(s.requests) + "," +
           std::to_string(s.rejected) + "," + std::to_string(r.turns_truncated) + "," + std::to_string(s.steps) +
           "," + num(s.mean_batch_sequences) + "," + std::to_string(r.kv_capacity_tokens) + "," +
           num(s.window_s) + "," + num(r.power.provisioned_w) + "," + num(r.level) + "," + r.id + "," +
           std::to_string(r.seed) + "," + (r.bisection ? "1" : "0") + "," + csv_text(r.skipped) + "," +
           num(s.prefix_hit_rate) + "," + num(s.hit_rate_hbm) + "," + num(s.hit_rate_host) + "," +
           num(s.hit_rate_ssd) + "," + num(s.hit_rate_remote) + "," + std::to_string(s.evictions) + "," +
           num(s.bytes_loaded) + "," + num(s.bytes_stored) + "," + std::to_string(s.preemptions) + "," +
           num(s.kv_transfer_bytes) + "," + num(s.kv_occupancy_mean) + "," + num(s.kv_occupancy_peak) + "\n";
  }
  return out;
}

}  // namespace agentsim::exp
