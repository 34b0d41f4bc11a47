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

// SGLang's --scheduler-recv-interval: a request that arrives while a batch decodes reaches the
// scheduler at the next multiple of the interval in decode steps; with an interval of 1 at the
// end of the step in progress. A arrives alone (an idle scheduler receives at once), B in the
// middle of A's second decode step. Stepping and fast-forward place B's prefill identically.
TEST_F(ReplicaFixture, ArrivalsWaitForTheSchedulersNextReceive) {
  auto run = [&](int interval, bool fast_forward, double b_at_s, std::vector<metrics::StepRecord>& steps) {
    core::Simulator sim;
    metrics::Recorder rec;
    ReplicaOptions o = options();
    o.recv_interval_steps = interval;
    o.fast_forward = fast_forward;
    Replica replica(sim, model, system, o, rec);
    replica.submit(req(0, 100, 30), [](const metrics::RequestRecord&) {});
    if (b_at_s > 0) sim.at(core::to_ticks(b_at_s), [&] { replica.submit(req(1, 200, 5), [](const metrics::RequestRecord&) {}); });
    sim.run_until_idle();
    steps = rec.steps();
    return rec.requests();
  };
  std::vector<metrics::StepRecord> alone;
  run(1, false, 0, alone);
  ASSERT_GE(alone.size(), 6u);
  EXPECT_EQ(alone[0].start_s, 0.0) << "an idle scheduler receives at once";
  EXPECT_GT(alone[0].prefill_tokens, 0);
  const double b_at = 0.5 * (alone[2].start_s + alone[2].end_s);  // inside A's second decode step
  for (const auto& [interval, boundary] : {std::pair{1, 2}, std::pair{4, 4}, std::pair{3, 3}}) {
    SCOPED_TRACE("interval " + std::to_string(interval));
    std::vector<metrics::StepRecord> stepped, ff;
    const auto r_step = run(interval, false, b_at, stepped);
    const auto r_ff = run(interval, true, b_at, ff);
    // B's prefill is the first step with prefill work after A's; it starts at the end of A's
    // decode step `boundary` (A runs alone until then, so its steps are the lone run's).
    std::size_t first = 0;
    for (std::size_t i = 1; i < stepped.size() && first == 0; ++i) first = stepped[i].prefill_tokens > 0 ? i : 0;
    ASSERT_EQ(first, static_cast<std::size_t>(boundary) + 1);
    EXPECT_EQ(stepped[first].start_s, alone[static_cast<std::size_t>(boundary)].end_s);
    ASSERT_EQ(r_ff.size(), r_step.size());
    for (std::size_t i = 0; i < r_step.size(); ++i) {
      EXPECT_EQ(r_ff[i].first_token_s, r_step[i].first_token_s) << i;
      EXPECT_EQ(r_ff[i].last_token_s, r_step[i].last_token_s) << i;
    }
  }
}

// A step with prefill work makes the next step boundary a receive (SGLang weighs it above
// any interval): B, arriving during A's prefill step, joins the very next step.
TEST_F(ReplicaFixture, APrefillStepReceivesAtItsEnd) {
  core::Simulator sim;
  metrics::Recorder rec;
  ReplicaOptions o = options();
  o.recv_interval_steps = 30;
  o.fast_forward = false;
  Replica replica(sim, model, system, o, rec);
  replica.submit(req(0, 4000, 10), [](const metrics::RequestRecord&) {});
  sim.at(core::to_ticks(1e-3), [&] { replica.submit(req(1, 100, 10), [](const metrics::RequestRecord&) {}); });
  sim.run_until_idle();
  ASSERT_GE(rec.steps().size(), 2u);
  EXPECT_GT(rec.steps()[0].end_s, 1e-3) << "B arrives during A's prefill";
  EXPECT_EQ(rec.steps()[1].prefill_tokens, 100);
  EXPECT_EQ(replica.waiting(), 0u);
}

// A closed loop of agents whose answers end at different steps: with a receive interval, runs
// end at receives and the next prompts wait for them; stepping and fast-forward agree on every
// request to the tick, and the interval delays first tokens on average.
TEST_F(ReplicaFixture, ReceiveIntervalKeepsFastForwardExact) {
  wl::Trace pool;
  for (int i = 0; i < 12; ++i) {
    std::string name = "s";
    name += std::to_string(i);
    pool.sessions.push_back(wl::Session{name, {wl::Turn{300 + 50 * i, 20 + 7 * i, 0.0}}});
  }
  auto run = [&](int interval, bool fast_forward) {
    core::Simulator sim;
    metrics::Recorder rec;
    ReplicaOptions o = options();
    o.recv_interval_steps = interval;
    o.fast_forward = fast_forward;
    Replica replica(sim, model, system, o, rec);
    ClosedLoopOptions co;
    co.agents = 6;
    ClosedLoopDriver driver(sim, replica, pool, co);
    driver.start();
    sim.run_until(core::to_ticks(3.0));
    return rec.requests();
  };
  const auto ff = run(7, true), stepped = run(7, false), every = run(1, true);
  ASSERT_GT(stepped.size(), 20u);
  ASSERT_EQ(ff.size(), stepped.size());
  for (std::size_t i = 0; i < ff.size(); ++i) {
    EXPECT_EQ(ff[i].arrival_s, stepped[i].arrival_s) << i;
    EXPECT_EQ(ff[i].first_token_s, stepped[i].first_token_s) << i;
    EXPECT_EQ(ff[i].last_token_s, stepped[i].last_token_s) << i;
  }
  auto mean_ttft = [](const std::vector<metrics::RequestRecord>& rs) {
    double s = 0;
    for (const auto& r : rs) s += r.first_token_s - r.arrival_s;
    return s / static_cast<double>(rs.size());
  };
  EXPECT_GT(mean_ttft(stepped), mean_ttft(every) * 1.2) << "waiting for receives lengthens TTFT";
}

}  // namespace
}  // namespace agentsim::serving
