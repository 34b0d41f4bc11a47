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
      "turns_truncated,steps,mean_batch_sequences,kv_capacity_tokens,window_s\n";
  for (const auto& r : runs) {
    const auto& s = r.summary;
    out += std::to_string(r.concurrency) + "," + num(s.output_tok_s) + "," + num(s.total_tok_s) + "," +
           num(s.input_tok_s) + "," + num(s.computed_input_tok_s) + "," + num(s.agent_output_tok_s_p50) +
           "," + num(s.agent_output_tok_s_p10) + "," + num(s.ttft_s_p50) + "," + num(s.ttft_s_p90) + "," +
           num(s.ttft_s_p99) + "," + num(s.itl_s_mean) + "," + std::to_string(s.requests) + "," +
           std::to_string(s.rejected) + "," + std::to_string(r.turns_truncated) + "," +
           std::to_string(s.steps) + "," + num(s.mean_batch_sequences) + "," +
           std::to_string(r.kv_capacity_tokens) + "," + num(s.window_s) + "\n";
  }
  return out;
}

}  // namespace agentsim::exp
