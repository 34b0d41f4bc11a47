#include "sim/metrics/summary.hpp"

#include <algorithm>
#include <vector>

#include "sim/metrics/percentile.hpp"

namespace agentsim::metrics {

Summary summarize(const Recorder& rec, double start_s, double end_s) {
  Summary s;
  s.window_s = end_s - start_s;
  auto in_window = [&](double t) { return t >= start_s && t < end_s; };

  double out_tokens = 0, prefill_tokens = 0, cached_tokens = 0, batch_seq = 0, occupancy = 0;
  for (const auto& st : rec.steps()) {
    if (!in_window(st.end_s)) continue;
    const double n = static_cast<double>(st.steps);
    s.steps += st.steps;
    out_tokens += st.sampled_tokens * n;
    prefill_tokens += static_cast<double>(st.prefill_tokens) * n;
    cached_tokens += static_cast<double>(st.cached_tokens);
    batch_seq += st.batch_sequences * n;
    occupancy += st.kv_used_fraction * n;
    s.kv_occupancy_peak = std::max(s.kv_occupancy_peak, st.kv_used_fraction);
  }
  std::vector<double> speed, ttft;
  double itl_sum = 0;
  long long itl_n = 0;
  for (const auto& r : rec.requests()) {
    if (r.rejected) {
      if (in_window(r.arrival_s)) ++s.rejected;
      continue;
    }
    if (!in_window(r.last_token_s)) continue;
    ++s.requests;
    ttft.push_back(r.first_token_s - r.arrival_s);
    if (r.output_tokens >= 2 && r.last_token_s > r.first_token_s) {
      const double dt = r.last_token_s - r.first_token_s;
      speed.push_back(static_cast<double>(r.output_tokens - 1) / dt);
      itl_sum += dt / static_cast<double>(r.output_tokens - 1);
      ++itl_n;
    }
  }
  s.output_tok_s = out_tokens / s.window_s;
  s.computed_input_tok_s = prefill_tokens / s.window_s;
  s.input_tok_s = (prefill_tokens + cached_tokens) / s.window_s;
  s.total_tok_s = s.input_tok_s + s.output_tok_s;
  s.agent_output_tok_s_p50 = percentile(speed, 50);
  s.agent_output_tok_s_p10 = percentile(speed, 10);
  s.ttft_s_p50 = percentile(ttft, 50);
  s.ttft_s_p90 = percentile(ttft, 90);
  s.ttft_s_p99 = percentile(ttft, 99);
  s.itl_s_mean = itl_n ? itl_sum / static_cast<double>(itl_n) : 0.0;
  s.mean_batch_sequences = s.steps ? batch_seq / static_cast<double>(s.steps) : 0.0;
  s.kv_occupancy_mean = s.steps ? occupancy / static_cast<double>(s.steps) : 0.0;
  return s;
}

Summary summarize(const Recorder& rec, double start_s, double end_s, const CacheCounters& c) {
  Summary s = summarize(rec, start_s, end_s);
  const double lookup = static_cast<double>(c.lookup_tokens);
  auto rate = [&](long long hits) { return lookup > 0 ? static_cast<double>(hits) / lookup : 0.0; };
  s.prefix_hit_rate = rate(c.hit_tokens);
  double* by_tier[] = {&s.hit_rate_hbm, &s.hit_rate_host, &s.hit_rate_ssd, &s.hit_rate_remote};
  for (std::size_t i = 0; i < c.tiers.size(); ++i) {
    const auto& t = c.tiers[i];
    if (i < 4) *by_tier[i] = rate(t.hit_tokens);
    s.evictions += t.evictions;
    s.bytes_loaded += t.bytes_loaded;
    s.bytes_stored += t.bytes_stored;
  }
  s.preemptions = c.preemptions;
  s.kv_transfer_bytes = c.kv_transfer_bytes;
  return s;
}

}  // namespace agentsim::metrics
