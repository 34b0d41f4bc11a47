#include "sim/metrics/recorder.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/metrics/summary.hpp"

namespace agentsim::metrics {
namespace {

StepRecord step(double end_s, int sampled, long long prefill, int steps = 1) {
  StepRecord s;
  s.end_s = end_s;
  s.sampled_tokens = sampled;
  s.prefill_tokens = prefill;
  s.steps = steps;
  s.batch_sequences = sampled;
  return s;
}

RequestRecord request(double arrival_s, double first_s, double last_s, long long out) {
  RequestRecord r;
  r.arrival_s = arrival_s;
  r.first_token_s = first_s;
  r.last_token_s = last_s;
  r.output_tokens = out;
  return r;
}

// Two pods' recorders absorbed into one summarize like one recorder fed both pods' records.
// Every value is a small integer or a power-of-two fraction, so sums in any order are exact.
TEST(Recorder, AbsorbedPartsSummarizeLikeOneRecorder) {
  for (const bool streaming : {false, true}) {
    Recorder a, b, merged, whole;
    for (Recorder* r : {&a, &b, &merged, &whole}) {
      if (streaming) r->stream_window(10, 20);
    }
    auto feed = [&](Recorder& part, const auto& rec) {
      part.add(rec);
      whole.add(rec);
    };
    feed(a, step(12, 8, 64));
    feed(a, step(25, 99, 99));  // after the window
    feed(b, step(15, 4, 0, 4));
    feed(a, request(9, 10, 12, 33));   // 32 tokens over 2 s: 16 tok/s, 1/16 s apart
    feed(b, request(10, 11, 15, 257)); // 256 tokens over 4 s: 64 tok/s
    feed(b, request(11, 12, 14, 65));  // 64 tokens over 2 s: 32 tok/s
    RequestRecord rejected;
    rejected.arrival_s = 13;
    rejected.rejected = true;
    feed(b, rejected);
    merged.absorb(std::move(a));
    merged.absorb(std::move(b));
    const Summary m = summarize(merged, 10, 20), w = summarize(whole, 10, 20);
    EXPECT_EQ(m.requests, 3) << streaming;
    EXPECT_EQ(m.rejected, 1) << streaming;
    EXPECT_EQ(m.steps, 5) << streaming;                 // 1 + a run of 4
    EXPECT_DOUBLE_EQ(m.output_tok_s, 2.4) << streaming; // (8 + 4 x 4) / 10 s
    EXPECT_DOUBLE_EQ(m.agent_output_tok_s_p50, 32.0) << streaming;
    EXPECT_EQ(m.output_tok_s, w.output_tok_s) << streaming;
    EXPECT_EQ(m.input_tok_s, w.input_tok_s) << streaming;
    EXPECT_EQ(m.steps, w.steps) << streaming;
    EXPECT_EQ(m.agent_output_tok_s_p10, w.agent_output_tok_s_p10) << streaming;
    EXPECT_EQ(m.ttft_s_p90, w.ttft_s_p90) << streaming;
    EXPECT_EQ(m.itl_s_mean, w.itl_s_mean) << streaming;
    EXPECT_EQ(m.mean_batch_sequences, w.mean_batch_sequences) << streaming;
    EXPECT_EQ(merged.requests().size(), streaming ? 0U : 4U) << streaming;
  }
}

TEST(Recorder, AbsorbRefusesMismatchedWindows) {
  Recorder streamed, stored, other;
  streamed.stream_window(0, 10);
  other.stream_window(0, 20);
  EXPECT_THROW(streamed.absorb(std::move(stored)), core::Error);
  EXPECT_THROW(streamed.absorb(std::move(other)), core::Error);
}

}  // namespace
}  // namespace agentsim::metrics
