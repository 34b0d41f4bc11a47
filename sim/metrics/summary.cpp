#include "sim/metrics/summary.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/metrics/percentile.hpp"

namespace agentsim::metrics {

namespace {

Summary finish(WindowTotals& w) {
  Summary s;
  s.window_s = w.end_s - w.start_s;
  s.steps = w.steps;
  s.kv_occupancy_peak = w.occupancy_peak;
  s.requests = w.requests;
  s.rejected = w.rejected;
  s.output_tok_s = w.out_tokens / s.window_s;
  s.computed_input_tok_s = w.prefill_tokens / s.window_s;
  s.recomputed_input_tok_s = w.recomputed_tokens / s.window_s;
  // Each prompt token once: computed the first time or cached (a recompute is work, not input).
  s.input_tok_s = (w.prefill_tokens - w.recomputed_tokens + w.cached_tokens) / s.window_s;
  s.total_tok_s = s.input_tok_s + s.output_tok_s;
  s.agent_output_tok_s_p50 = percentile(w.speed_tok_s, 50);
  s.agent_output_tok_s_p10 = percentile(w.speed_tok_s, 10);
  s.ttft_s_p50 = percentile(w.ttft_s, 50);
  s.ttft_s_p90 = percentile(w.ttft_s, 90);
  s.ttft_s_p99 = percentile(w.ttft_s, 99);
  s.itl_s_mean = w.itl_n ? w.itl_sum_s / static_cast<double>(w.itl_n) : 0.0;
  s.mean_batch_sequences = s.steps ? w.batch_seq / static_cast<double>(s.steps) : 0.0;
  s.kv_occupancy_mean = s.steps ? w.occupancy / static_cast<double>(s.steps) : 0.0;
  return s;
}

}  // namespace

double cache_hit_rate(const Summary& s) {
  const double in = s.input_tok_s;
  return in > 0 ? (in - s.computed_input_tok_s + s.recomputed_input_tok_s) / in : std::nan("");
}

Summary summarize(const Recorder& rec, double start_s, double end_s) {
  if (const WindowTotals* streamed = rec.streamed()) {
    if (streamed->start_s != start_s || streamed->end_s != end_s) {
      throw core::Error("summary window [" + std::to_string(start_s) + ", " + std::to_string(end_s) +
                        ") differs from the window the recorder streamed [" + std::to_string(streamed->start_s) +
                        ", " + std::to_string(streamed->end_s) + ")");
    }
    WindowTotals w = *streamed;  // percentile() sorts its sample in place
    return finish(w);
  }
  WindowTotals w;
  w.start_s = start_s;
  w.end_s = end_s;
  for (const auto& st : rec.steps()) w.add(st);
  for (const auto& r : rec.requests()) w.add(r);
  return finish(w);
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
