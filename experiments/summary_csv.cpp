#include "experiments/summary_csv.hpp"

#include <cstdio>

namespace agentsim::exp {
namespace {

std::string num(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

}  // namespace

std::string summary_csv(const std::vector<RunResult>& runs) {
  std::string out =
      "concurrency,output_tok_s,total_tok_s,input_tok_s,computed_input_tok_s,agent_output_tok_s_p50,"
      "agent_output_tok_s_p10,ttft_s_p50,ttft_s_p90,ttft_s_p99,itl_s_mean,requests,rejected,"
      "turns_truncated,steps,mean_batch_sequences,kv_capacity_tokens,window_s,prefix_hit_rate,hit_rate_hbm,hit_rate_host,hit_rate_ssd,"
      "hit_rate_remote,evictions,bytes_loaded,bytes_stored,preemptions,kv_transfer_bytes,kv_occupancy_mean,"
      "kv_occupancy_peak\n";
  for (const auto& r : runs) {
    const auto& s = r.summary;
    out += std::to_string(r.concurrency) + "," + num(s.output_tok_s) + "," + num(s.total_tok_s) + "," +
           num(s.input_tok_s) + "," + num(s.computed_input_tok_s) + "," + num(s.agent_output_tok_s_p50) +
           "," + num(s.agent_output_tok_s_p10) + "," + num(s.ttft_s_p50) + "," + num(s.ttft_s_p90) + "," +
           num(s.ttft_s_p99) + "," + num(s.itl_s_mean) + "," + std::to_string(s.requests) + "," +
           std::to_string(s.rejected) + "," + std::to_string(r.turns_truncated) + "," +
           std::to_string(s.steps) + "," + num(s.mean_batch_sequences) + "," +
           std::to_string(r.kv_capacity_tokens) + "," + num(s.window_s) + "," + num(s.prefix_hit_rate) + "," +
           num(s.hit_rate_hbm) + "," + num(s.hit_rate_host) + "," + num(s.hit_rate_ssd) + "," +
           num(s.hit_rate_remote) + "," + std::to_string(s.evictions) + "," + num(s.bytes_loaded) + "," +
           num(s.bytes_stored) + "," + std::to_string(s.preemptions) + "," + num(s.kv_transfer_bytes) + "," +
           num(s.kv_occupancy_mean) + "," + num(s.kv_occupancy_peak) + "\n";
  }
  return out;
}

}  // namespace agentsim::exp
