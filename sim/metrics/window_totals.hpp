#pragma once
// What summarize() reads from the records of one window [start_s, end_s), folded in
// record by record. Folding in the order records are added gives the same sums, bit
// for bit, as a later pass over the stored records; only the per-request samples
// that percentiles need are kept (two doubles a request).
#include <vector>

#include "sim/metrics/records.hpp"

namespace agentsim::metrics {

struct WindowTotals {
  double start_s = 0, end_s = 0;
  // Steps ending in the window (a fast-forwarded record counts its `steps`).
  long long steps = 0;
  double out_tokens = 0, prefill_tokens = 0, recomputed_tokens = 0, cached_tokens = 0, batch_seq = 0, occupancy = 0;
  double occupancy_peak = 0;
  // Requests completing in the window (rejected ones: arriving in it).
  long long requests = 0, rejected = 0;
  std::vector<double> speed_tok_s, ttft_s;  // per request, in completion order
  double itl_sum_s = 0;
  long long itl_n = 0;

  bool in_window(double t) const { return t >= start_s && t < end_s; }
  void add(const StepRecord& st);
  void add(const RequestRecord& r);
  // Folds in another part of the same window (e.g. another pod of the cluster): sums add,
  // the peak is the larger, samples follow this part's.
  void merge(const WindowTotals& o);
};

}  // namespace agentsim::metrics
