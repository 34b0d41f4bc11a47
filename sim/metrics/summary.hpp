#pragma once
// The per-run metrics of DESIGN.md section 3, reduced over a measurement window.
#include "sim/metrics/cache_counters.hpp"
#include "sim/metrics/recorder.hpp"

namespace agentsim::metrics {

struct Summary {
  double window_s = 0;
  long long requests = 0;          // completed in the window
  long long rejected = 0;          // arrived in the window but could never be served
  double output_tok_s = 0;         // output tokens emitted in the window / window
  double input_tok_s = 0;          // prompt tokens of steps in the window, each once (computed or cached) / window
  double computed_input_tok_s = 0; // prompt tokens actually computed / window
  double recomputed_input_tok_s = 0;  // of those, computed again after a recompute preemption / window
  double total_tok_s = 0;          // input + output
  double agent_output_tok_s_p50 = 0;  // per-request (out-1)/(last-first), over requests in window
  double agent_output_tok_s_p10 = 0;
  double ttft_s_p50 = 0, ttft_s_p90 = 0, ttft_s_p99 = 0;
  double itl_s_mean = 0;           // mean inter-token latency over requests in window
  long long steps = 0;             // steps ending in the window
  double mean_batch_sequences = 0; // per step in the window
  // Cache (from the window's CacheCounters; zero when none given).
  double prefix_hit_rate = 0;      // cached prompt tokens / prompt tokens of admitted requests
  double hit_rate_hbm = 0, hit_rate_host = 0, hit_rate_ssd = 0, hit_rate_remote = 0;
  long long evictions = 0;         // blocks leaving any tier
  double bytes_loaded = 0;         // lower tiers -> HBM
  double bytes_stored = 0;         // HBM -> lower tiers
  long long preemptions = 0;
  double kv_transfer_bytes = 0;    // prefill -> decode
  double kv_occupancy_mean = 0;    // HBM KV in use / capacity, mean over steps in the window
  double kv_occupancy_peak = 0;
};

// Cached prompt tokens / prompt tokens of the window (NaN without prompts).
double cache_hit_rate(const Summary& s);

// Reduces over [start_s, end_s): tokens count when emitted (step end), requests
// when they complete. Percentiles of empty samples are NaN.
Summary summarize(const Recorder& rec, double start_s, double end_s);
// The same plus the cache fields from `cache` (counters accumulated over the window).
Summary summarize(const Recorder& rec, double start_s, double end_s, const CacheCounters& cache);

}  // namespace agentsim::metrics
