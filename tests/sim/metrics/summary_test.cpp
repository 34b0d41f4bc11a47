#include "sim/metrics/summary.hpp"

#include <gtest/gtest.h>

#include <cmath>

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

}  // namespace
}  // namespace agentsim::metrics
