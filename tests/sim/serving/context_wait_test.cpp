// TensorRT-LLM's context waits (attention-DP balance, batch waiting), as its PyExecutor decides
// them step by step, and on a replica: prompts held back, then started together.
#include <gtest/gtest.h>

#include <algorithm>
#include <vector>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "sim/serving/context_wait.hpp"
#include "sim/serving/replica.hpp"

namespace agentsim::serving {
namespace {

// attention_dp_config {enable_balance: true, timeout_iters: 4} on 2 ranks: a lone prompt waits
// for the 4th counted step; two prompts (one per rank) start at once; so do prompts when a rank
// decodes none.
TEST(ContextWait, BalanceStartsPromptsWhenEveryRankHasOneOrOnTheTimeout) {
  ContextWait w;
  w.balance_timeout_steps = 4;
  w.balance_ranks = 2;
  long long c = 0;
  EXPECT_TRUE(holds_prompts(w, c, 1, 100, 8, 8));   // count 1
  EXPECT_TRUE(holds_prompts(w, c, 1, 100, 8, 8));   // 2
  EXPECT_TRUE(holds_prompts(w, c, 1, 100, 8, 8));   // 3
  EXPECT_FALSE(holds_prompts(w, c, 1, 100, 8, 8));  // 4: the timeout starts it
  EXPECT_EQ(c, 0);
  EXPECT_FALSE(holds_prompts(w, c, 2, 200, 8, 8));  // a prompt for every rank
  EXPECT_EQ(c, 0);
  EXPECT_FALSE(holds_prompts(w, c, 1, 100, 1, 1));  // a rank decodes none
  // The count runs without prompts too: two idle steps, then a prompt waits only two more.
  EXPECT_FALSE(holds_prompts(w, c, 0, 0, 8, 8));
  EXPECT_FALSE(holds_prompts(w, c, 0, 0, 8, 8));
  EXPECT_TRUE(holds_prompts(w, c, 1, 100, 8, 8));   // 3
  EXPECT_FALSE(holds_prompts(w, c, 1, 100, 8, 8));  // 4
}

// batch_wait_timeout_iters 3, batch_wait_max_tokens_ratio 0.5 of 1,000 tokens: prompts wait while
// sequences decode, until 3 held steps or 500 tokens; never without decodes.
TEST(ContextWait, BatchWaitingHoldsUntilTheTokensOrTheSteps) {
  ContextWait w;
  w.batch_wait_steps = 3;
  w.batch_wait_tokens = 500;
  long long c = 0;
  EXPECT_FALSE(holds_prompts(w, c, 1, 100, 0, 0));  // nothing decodes: no waiting
  EXPECT_TRUE(holds_prompts(w, c, 1, 100, 4, 4));
  EXPECT_TRUE(holds_prompts(w, c, 1, 100, 4, 4));
  EXPECT_TRUE(holds_prompts(w, c, 1, 100, 4, 4));
  EXPECT_FALSE(holds_prompts(w, c, 1, 100, 4, 4));  // 3 held steps
  EXPECT_EQ(c, 0);
  EXPECT_FALSE(holds_prompts(w, c, 5, 496, 4, 4));  // 500 tokens with the decodes'
  EXPECT_FALSE(holds_prompts(w, c, 0, 0, 4, 4));    // nothing waits: the count stays
  EXPECT_EQ(c, 0);
}

// A fast-forwarded run's steps count as that many idle decisions would.
TEST(ContextWait, IdleStepsInOneCallEqualThemOneByOne) {
  for (const int decoding : {1, 3}) {
    ContextWait w;
    w.balance_timeout_steps = 5;
    w.balance_ranks = 2;
    for (long long start = 0; start < 5; ++start) {
      for (long long k = 0; k <= 12; ++k) {
        long long one_by_one = start;
        for (long long i = 0; i < k; ++i) holds_prompts(w, one_by_one, 0, 0, decoding, decoding);
        EXPECT_EQ(counter_after_idle_steps(w, start, k, decoding), one_by_one) << start << " " << k;
      }
    }
  }
  ContextWait b;
  b.batch_wait_steps = 3;
  EXPECT_EQ(counter_after_idle_steps(b, 2, 7, 4), 2);
}

// On a replica (attention DP over 2 ranks, a timeout of 1,000 steps, longer than the run): a
// lone prompt that arrives while 4 sequences decode is held until a rank would decode none, that
// is until the 4 finish, where without the wait it starts at once; two prompts that arrive
// together (one per rank) start at once, as without the wait. Fast-forward and stepping agree.
TEST(ContextWait, AReplicaHoldsALonePromptUntilARankDecodesNone) {
  const auto& catalog = test::fixture_catalog();
  const wl::ModelSpec& model = catalog.models.get("llama-3.1-8b");
  const hw::System& system = catalog.systems.get("hgx-h200");
  const auto run = [&](bool wait, bool fast_forward, int late_prompts) {
    core::Simulator sim;
    metrics::Recorder rec;
    ReplicaOptions o;
    o.cost = StepCostOptions{1, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
    o.kv_capacity_tokens = kv_capacity_tokens(model, system, 1, 0.9);
    o.fast_forward = fast_forward;
    if (wait) o.context_wait.balance_timeout_steps = 1000, o.context_wait.balance_ranks = 2;
    Replica replica(sim, model, system, o, rec);
    const auto submit = [&](int agent, long long output_tokens) {
      Request r;
      r.agent = agent;
      r.input_tokens = 500;
      r.output_tokens = output_tokens;
      replica.submit(r, [](const metrics::RequestRecord&) {});
    };
    for (int i = 0; i < 4; ++i) submit(i, 400);
    sim.at(core::to_ticks(0.3), [&] {
      for (int i = 0; i < late_prompts; ++i) submit(10 + i, 20);
    });
    sim.run_until_idle();
    return rec.requests();
  };
  const auto first_token = [](const std::vector<metrics::RequestRecord>& rs, int agent) {
    for (const auto& q : rs) {
      if (q.agent == agent) return q.first_token_s;
    }
    return -1.0;
  };
  const auto last_of_long = [](const std::vector<metrics::RequestRecord>& rs) {
    double t = 0;
    for (const auto& q : rs) {
      if (q.agent < 4) t = std::max(t, q.last_token_s);
    }
    return t;
  };
  const auto direct = run(false, true, 1), held = run(true, true, 1), stepped = run(true, false, 1);
  ASSERT_GT(first_token(direct, 10), 0.3);
  EXPECT_LT(first_token(direct, 10), last_of_long(direct));
  EXPECT_GE(first_token(held, 10), last_of_long(held));
  EXPECT_NEAR(first_token(held, 10), first_token(stepped, 10), 1e-9);
  // One prompt per rank: no wait.
  const auto pair_direct = run(false, true, 2), pair_held = run(true, true, 2);
  for (int agent : {10, 11}) EXPECT_EQ(first_token(pair_held, agent), first_token(pair_direct, agent)) << agent;
}

}  // namespace
}  // namespace agentsim::serving
