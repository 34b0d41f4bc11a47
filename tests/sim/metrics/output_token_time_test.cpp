// The k-th output token's time from a request record: the first token at k = 1, a
// constant-pace request's token times reproduced exactly, the last token's time when the
// request has no more than k tokens, and k < 1 refused.
#include "sim/metrics/output_token_time.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "sim/core/error.hpp"

namespace agentsim::metrics {
namespace {

// A request decoding at a constant pace: its token times laid out one by one.
struct PacedRequest {
  RequestRecord record;
  std::vector<double> token_s;  // token_s[i]: when output token i + 1 was produced
};

PacedRequest paced(double first_s, double pace_s, long long tokens) {
  PacedRequest p;
  double t = first_s;
  for (long long i = 0; i < tokens; ++i, t += pace_s) p.token_s.push_back(t);
  p.record.arrival_s = first_s / 2;
  p.record.output_tokens = tokens;
  p.record.first_token_s = p.token_s.front();
  p.record.last_token_s = p.token_s.back();
  return p;
}

TEST(OutputTokenTime, FirstTokenIsTheRecordsFirstTokenTime) {
  const PacedRequest p = paced(1.25, 0.013, 200);
  EXPECT_EQ(output_token_time_s(p.record, 1), p.record.first_token_s);
}

TEST(OutputTokenTime, ConstantPaceGivesEachTokensTime) {
  const PacedRequest p = paced(0.8, 0.017, 1024);
  for (long long k : {2LL, 10LL, 37LL, 1023LL, 1024LL}) {
    EXPECT_NEAR(output_token_time_s(p.record, k), p.token_s[static_cast<std::size_t>(k - 1)], 1e-9) << "k=" << k;
  }
}

TEST(OutputTokenTime, RequestWithFewerTokensThanKGivesItsLastTokenTime) {
  const PacedRequest p = paced(2.0, 0.02, 4);
  EXPECT_EQ(output_token_time_s(p.record, 10), p.record.last_token_s);
  const PacedRequest one = paced(2.0, 0.02, 1);
  EXPECT_EQ(output_token_time_s(one.record, 10), one.record.first_token_s);
}

TEST(OutputTokenTime, IndexBelowOneIsAnError) {
  const PacedRequest p = paced(1.0, 0.01, 8);
  EXPECT_THROW(output_token_time_s(p.record, 0), core::Error);
}

}  // namespace
}  // namespace agentsim::metrics
