#include "sim/metrics/summary.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include "sim/core/error.hpp"
#include "sim/metrics/percentile.hpp"

namespace agentsim::metrics {
namespace {

TEST(Percentile, LinearInterpolation) {
  std::vector<double> v{4, 1, 3, 2};
  EXPECT_DOUBLE_EQ(percentile(v, 50), 2.5);
  EXPECT_DOUBLE_EQ(percentile(v, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(v, 100), 4);
  EXPECT_DOUBLE_EQ(percentile(v, 10), 1.3);
  std::vector<double> empty;
  EXPECT_TRUE(std::isnan(percentile(empty, 50)));
}

TEST(Summary, CountsOnlyTheWindow) {
  Recorder rec;
  StepRecord s;
  s.end_s = 5;  s.sampled_tokens = 100; s.prefill_tokens = 1000; rec.add(s);  // before window
  s.end_s = 10; s.sampled_tokens = 30;  s.prefill_tokens = 200; s.cached_tokens = 50; rec.add(s);
  s.end_s = 19; s.sampled_tokens = 10;  s.prefill_tokens = 0;   s.cached_tokens = 0; rec.add(s);
  s.end_s = 20; s.sampled_tokens = 999; rec.add(s);  // end is exclusive
  RequestRecord r;
  r.arrival_s = 9; r.first_token_s = 10; r.last_token_s = 12; r.output_tokens = 21; rec.add(r);  // 10 tok/s
  r.arrival_s = 10; r.first_token_s = 11; r.last_token_s = 15; r.output_tokens = 201; rec.add(r);  // 50 tok/s
  r.arrival_s = 1; r.first_token_s = 2; r.last_token_s = 3; rec.add(r);  // outside
  const Summary sum = summarize(rec, 10, 20);
  EXPECT_DOUBLE_EQ(sum.output_tok_s, 4.0);
  EXPECT_DOUBLE_EQ(sum.computed_input_tok_s, 20.0);
  EXPECT_DOUBLE_EQ(sum.input_tok_s, 25.0);
  EXPECT_DOUBLE_EQ(sum.total_tok_s, 29.0);
  EXPECT_EQ(sum.requests, 2);
  EXPECT_EQ(sum.steps, 2);
  EXPECT_DOUBLE_EQ(sum.agent_output_tok_s_p50, 30.0);
  EXPECT_DOUBLE_EQ(sum.agent_output_tok_s_p10, 14.0);
  EXPECT_DOUBLE_EQ(sum.ttft_s_p50, 1.0);
}

// A recorder streaming the window [10, 20) folds the same records into the same sums in
// the same order, so every field equals the stored recorder's summary exactly; the values
// are those derived in CountsOnlyTheWindow (4 output tok/s, 2 requests, p50 30 tok/s), and
// the rejected request arriving at 12 counts once. No record is stored.
TEST(Summary, StreamedWindowEqualsStoredRecords) {
  Recorder stored, streamed;
  streamed.stream_window(10, 20);
  auto add = [&](const auto& rec) {
    stored.add(rec);
    streamed.add(rec);
  };
  StepRecord s;
  s.end_s = 5;  s.sampled_tokens = 100; s.prefill_tokens = 1000; add(s);
  s.end_s = 10; s.sampled_tokens = 30;  s.prefill_tokens = 200; s.cached_tokens = 50; s.kv_used_fraction = 0.5; add(s);
  s.end_s = 19; s.sampled_tokens = 5;   s.prefill_tokens = 0;   s.cached_tokens = 0; s.steps = 2; s.kv_used_fraction = 0.25;
  add(s);
  s.end_s = 20; s.sampled_tokens = 999; add(s);
  RequestRecord r;
  r.arrival_s = 9; r.first_token_s = 10; r.last_token_s = 12; r.output_tokens = 21; add(r);
  r.arrival_s = 10; r.first_token_s = 11; r.last_token_s = 15; r.output_tokens = 201; add(r);
  r.arrival_s = 1; r.first_token_s = 2; r.last_token_s = 3; add(r);
  RequestRecord rejected;
  rejected.arrival_s = 12;
  rejected.rejected = true;
  add(rejected);
  EXPECT_TRUE(streamed.steps().empty());
  EXPECT_TRUE(streamed.requests().empty());
  const Summary a = summarize(stored, 10, 20), b = summarize(streamed, 10, 20);
  EXPECT_DOUBLE_EQ(b.output_tok_s, 4.0);  // (30 + 5 x 2) / 10 s
  EXPECT_EQ(b.requests, 2);
  EXPECT_EQ(b.rejected, 1);
  EXPECT_EQ(b.steps, 3);
  EXPECT_DOUBLE_EQ(b.agent_output_tok_s_p50, 30.0);
  EXPECT_EQ(a.output_tok_s, b.output_tok_s);
  EXPECT_EQ(a.input_tok_s, b.input_tok_s);
  EXPECT_EQ(a.computed_input_tok_s, b.computed_input_tok_s);
  EXPECT_EQ(a.requests, b.requests);
  EXPECT_EQ(a.rejected, b.rejected);
  EXPECT_EQ(a.steps, b.steps);
  EXPECT_EQ(a.agent_output_tok_s_p50, b.agent_output_tok_s_p50);
  EXPECT_EQ(a.agent_output_tok_s_p10, b.agent_output_tok_s_p10);
  EXPECT_EQ(a.ttft_s_p50, b.ttft_s_p50);
  EXPECT_EQ(a.ttft_s_p99, b.ttft_s_p99);
  EXPECT_EQ(a.itl_s_mean, b.itl_s_mean);
  EXPECT_EQ(a.mean_batch_sequences, b.mean_batch_sequences);
  EXPECT_EQ(a.kv_occupancy_mean, b.kv_occupancy_mean);  // (0.5 + 0.25 x 2) / 3
  EXPECT_EQ(a.kv_occupancy_peak, b.kv_occupancy_peak);
  // Another window cannot be read from the streamed totals.
  EXPECT_THROW(summarize(streamed, 0, 20), core::Error);
}

}  // namespace
}  // namespace agentsim::metrics
