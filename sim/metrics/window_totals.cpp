#include "sim/metrics/window_totals.hpp"

#include <algorithm>

namespace agentsim::metrics {

void WindowTotals::add(const StepRecord& st) {
  if (!in_window(st.end_s)) return;
  const double n = static_cast<double>(st.steps);
  steps += st.steps;
  out_tokens += st.sampled_tokens * n;
  prefill_tokens += static_cast<double>(st.prefill_tokens) * n;
  recomputed_tokens += static_cast<double>(st.recomputed_tokens) * n;
  cached_tokens += static_cast<double>(st.cached_tokens);
  batch_seq += st.batch_sequences * n;
  occupancy += st.kv_used_fraction * n;
  occupancy_peak = std::max(occupancy_peak, st.kv_used_fraction);
}

void WindowTotals::add(const RequestRecord& r) {
  if (r.rejected) {
    if (in_window(r.arrival_s)) ++rejected;
    return;
  }
  if (!in_window(r.last_token_s)) return;
  ++requests;
  ttft_s.push_back(r.first_token_s - r.arrival_s);
  if (r.output_tokens >= 2 && r.last_token_s > r.first_token_s) {
    const double dt = r.last_token_s - r.first_token_s;
    speed_tok_s.push_back(static_cast<double>(r.output_tokens - 1) / dt);
    itl_sum_s += dt / static_cast<double>(r.output_tokens - 1);
    ++itl_n;
  }
}

void WindowTotals::merge(const WindowTotals& o) {
  steps += o.steps;
  out_tokens += o.out_tokens;
  prefill_tokens += o.prefill_tokens;
  recomputed_tokens += o.recomputed_tokens;
  cached_tokens += o.cached_tokens;
  batch_seq += o.batch_seq;
  occupancy += o.occupancy;
  occupancy_peak = std::max(occupancy_peak, o.occupancy_peak);
  requests += o.requests;
  rejected += o.rejected;
  speed_tok_s.insert(speed_tok_s.end(), o.speed_tok_s.begin(), o.speed_tok_s.end());
  ttft_s.insert(ttft_s.end(), o.ttft_s.begin(), o.ttft_s.end());
  itl_sum_s += o.itl_sum_s;
  itl_n += o.itl_n;
}

}  // namespace agentsim::metrics
