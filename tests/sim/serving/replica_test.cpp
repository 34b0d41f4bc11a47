#include "sim/serving/replica.hpp"

#include <gtest/gtest.h>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "sim/serving/closed_loop_driver.hpp"

namespace agentsim::serving {
namespace {

Request req(int agent, long long in, long long out) {
  Request r;
  r.agent = agent;
  r.input_tokens = in;
  r.output_tokens = out;
  return r;
}

struct ReplicaFixture : ::testing::Test {
  const serving::test::FixtureCatalog& catalog = serving::test::fixture_catalog();
  const wl::ModelSpec& model = catalog.models.get("llama-3.1-70b");
  const hw::System& system = catalog.systems.get("hgx-h200");
  ReplicaOptions options() const {
    ReplicaOptions o;
    o.cost = StepCostOptions{8, hw::Efficiency{1.0, 1.0, 1.0}, 1e-3};
    o.max_batch_tokens = 8192;
    o.max_sequences = 64;
    o.kv_capacity_tokens = kv_capacity_tokens(model, system, 8, 0.9);
    return o;
  }
};

TEST_F(ReplicaFixture, KvCapacityIsHbmLeftAfterWeights) {
  // (8 x 141e9 x 0.9 - 141,107,412,992) / 327,680 = 874,092,587,008 / 327,680 = 2,667,518.9
  EXPECT_EQ(kv_capacity_tokens(model, system, 8, 0.9), 2667518);
  EXPECT_LE(kv_capacity_tokens(model, system, 1, 0.9), 0) << "70B BF16 does not fit one H200";
}

// One agent, one turn of 1000 prompt tokens and 11 output tokens: TTFT is one
// prefill step and the answer streams over 10 decode steps, each hand-computed
// (see step_cost_test.cpp for the constants):
//   prefill = max(17.469 ms compute, 3.683 ms HBM) + 13.554 ms all-reduce + 1 ms
// (all-reduce hops are 1.5 us per the H200 catalog: 160 x 14 x 1.5 us of latency per step)
//   decode k (context 1000+k) = HBM-bound weights + KV, + 160 small all-reduces + 1 ms
TEST_F(ReplicaFixture, OneAgentOneTurnMatchesTheRoofline) {
  core::Simulator sim;
  metrics::Recorder rec;
  Replica replica(sim, model, system, options(), rec);
  wl::Trace pool;
  pool.sessions.push_back(wl::Session{"s", {wl::Turn{1000, 11, 0.0}}});
  ClosedLoopOptions co;
  co.agents = 1;
  ClosedLoopDriver driver(sim, replica, pool, co);
  driver.start();
  sim.run_until(core::to_ticks(0.2));  // the turn takes ~0.125 s; the agent then starts over

  ASSERT_GE(rec.requests().size(), 1u);
  const metrics::RequestRecord& r = rec.requests().front();
  // The step times follow step_cost (its per-op floors are tested in step_cost_test.cpp):
  // TTFT = the 1000-token prefill step; the answer = 10 decode steps at context 1000 + k.
  StepBatch pre;
  pre.prefills.push_back(PrefillChunk{1000, 0, true});
  const double ttft = step_cost(pre, model, system, options().cost).total_s;
  double decode = 0;
  for (int k = 0; k < 10; ++k) {
    StepBatch d;
    d.decodes.push_back(DecodeItem{1000 + k});
    decode += step_cost(d, model, system, options().cost).total_s;
  }
  EXPECT_GT(ttft, 0.03202367678402337);  // the skeleton's roofline, before per-op floors
  EXPECT_NEAR(r.first_token_s - r.arrival_s, ttft, 1e-8);
  EXPECT_NEAR(r.last_token_s - r.first_token_s, decode, 1e-7);
  EXPECT_EQ(r.output_tokens, 11);
  ASSERT_GE(rec.steps().size(), 11u);
  EXPECT_EQ(rec.steps()[0].prefill_tokens, 1000);
  EXPECT_EQ(rec.steps()[1].decode_tokens, 1);
}

TEST_F(ReplicaFixture, ChunkedPrefillSplitsLongPromptsAcrossSteps) {
  core::Simulator sim;
  metrics::Recorder rec;
  ReplicaOptions o = options();
  o.max_batch_tokens = 512;
  Replica replica(sim, model, system, o, rec);
  bool done = false;
  replica.submit(req(0, 1300, 2), [&](const metrics::RequestRecord&) { done = true; });
  sim.run_until_idle();
  ASSERT_TRUE(done);
  ASSERT_EQ(rec.steps().size(), 4u);  // 512 + 512 + 276 prefill, then one decode
  EXPECT_EQ(rec.steps()[0].prefill_tokens, 512);
  EXPECT_EQ(rec.steps()[2].prefill_tokens, 276);
  EXPECT_EQ(rec.steps()[2].sampled_tokens, 1);
  EXPECT_EQ(rec.steps()[3].decode_tokens, 1);
}

TEST_F(ReplicaFixture, DecodesRunFirstAndShareTheBudgetWithPrefill) {
  core::Simulator sim;
  metrics::Recorder rec;
  ReplicaOptions o = options();
  o.max_batch_tokens = 100;
  Replica replica(sim, model, system, o, rec);
  replica.submit(req(0, 50, 5), [](const metrics::RequestRecord&) {});
  replica.submit(req(1, 400, 5), [](const metrics::RequestRecord&) {});
  sim.run_until_idle();
  // Step 0: 50 (A, completes) + 50 of B. Step 1: A decodes 1 + 99 of B.
  EXPECT_EQ(rec.steps()[0].prefill_tokens, 100);
  EXPECT_EQ(rec.steps()[1].decode_tokens, 1);
  EXPECT_EQ(rec.steps()[1].prefill_tokens, 99);
}

// Without mixed batches (SGLang's default) a step with prefill work runs it alone: B's prompt
// arrives while A decodes, and A's decodes wait for B's prefill steps.
TEST_F(ReplicaFixture, UnmixedBatchesRunPrefillStepsAlone) {
  for (const bool mixed : {true, false}) {
    core::Simulator sim;
    metrics::Recorder rec;
    ReplicaOptions o = options();
    o.max_batch_tokens = 100;
    o.mixed_batches = mixed;
    Replica replica(sim, model, system, o, rec);
    replica.submit(req(0, 50, 5), [](const metrics::RequestRecord&) {});
    replica.submit(req(1, 400, 5), [](const metrics::RequestRecord&) {});
    sim.run_until_idle();
    ASSERT_GE(rec.steps().size(), 5u);
    // Step 0 is prefill only either way (A's 50 and B's first 50).
    EXPECT_EQ(rec.steps()[0].prefill_tokens, 100);
    EXPECT_EQ(rec.steps()[0].decode_tokens, 0);
    if (mixed) {
      EXPECT_EQ(rec.steps()[1].decode_tokens, 1);  // A decodes beside B's next chunk
      EXPECT_EQ(rec.steps()[1].prefill_tokens, 99);
    } else {
      // B's remaining 350 tokens take four prefill-only steps before A decodes again.
      for (int s = 1; s <= 4; ++s) {
        EXPECT_EQ(rec.steps()[static_cast<std::size_t>(s)].decode_tokens, 0) << s;
        EXPECT_GT(rec.steps()[static_cast<std::size_t>(s)].prefill_tokens, 0) << s;
      }
      EXPECT_EQ(rec.steps()[5].prefill_tokens, 0);
      EXPECT_EQ(rec.steps()[5].decode_tokens, 2);
    }
  }
}

TEST_F(ReplicaFixture, KvCapacityBlocksAdmissionAndOversizedRequestsAreRejected) {
  core::Simulator sim;
  metrics::Recorder rec;
  ReplicaOptions o = options();
  o.kv_capacity_tokens = 1000;
  Replica replica(sim, model, system, o, rec);
  int rejected = 0, finished = 0;
  auto cb = [&](const metrics::RequestRecord& r) { r.rejected ? ++rejected : ++finished; };
  replica.submit(req(0, 600, 10), cb);
  replica.submit(req(1, 600, 10), cb);   // waits: 610 + 610 > 1000
  replica.submit(req(2, 2000, 10), cb);  // can never fit
  EXPECT_EQ(rejected, 1);
  sim.run_until(0);
  EXPECT_EQ(replica.running(), 1u);
  EXPECT_EQ(replica.waiting(), 1u);
  sim.run_until_idle();
  EXPECT_EQ(finished, 2);
  EXPECT_EQ(replica.kv_used_tokens(), 0);
  // The second request starts only after the first has released its KV.
  const auto& reqs = rec.requests();
  ASSERT_EQ(reqs.size(), 3u);
  EXPECT_GE(reqs[2].first_token_s, reqs[1].last_token_s);
}

}  // namespace
}  // namespace agentsim::serving
