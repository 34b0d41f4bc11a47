// Wide expert parallelism: EP widths that do not divide the routed experts, with redundant
// experts filling the ranks the way production EP load balancers place them.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/rng.hpp"
#include "tests/workloads/model/model_fixtures.hpp"
#include "workloads/model/batch_work.hpp"
#include "workloads/model/footprint.hpp"
#include "workloads/model/moe_expectation.hpp"
#include "workloads/model/plan_sharding.hpp"

namespace agentsim::wl {
namespace {

using test::model;

TEST(ExpertPlacement, DefaultRedundancyIsTheFewestThatDivide) {
  // DeepSeek V4 Pro: 384 routed experts. 72 does not divide 384: 48 redundant make 432 = 6 x 72.
  const ParallelPlan ep72 = parse_parallel_plan("dp=72,ep=72");
  EXPECT_EQ(ep72.redundant_for(384), 48);
  EXPECT_EQ(ep72.experts_per_rank(384), 6);
  // 64 does not divide 384 either (6 x 64 = 384 does): none needed.
  EXPECT_EQ(parse_parallel_plan("dp=64,ep=64").redundant_for(384), 0);
  EXPECT_EQ(parse_parallel_plan("dp=64,ep=64").experts_per_rank(384), 6);
  EXPECT_EQ(parse_parallel_plan("dp=16,ep=16").redundant_for(384), 0);
  EXPECT_EQ(parse_parallel_plan("dp=32,ep=32").redundant_for(256), 0);
  EXPECT_EQ(parse_parallel_plan("dp=48,ep=48").redundant_for(256), 32);  // 288 = 6 x 48
  // Configured: ceil((routed + redundant) / ep), the busiest rank holding the extra slot.
  EXPECT_EQ(parse_parallel_plan("dp=64,ep=64,re=32").experts_per_rank(384), 7);  // 416 / 64 = 6.5
  EXPECT_EQ(parse_parallel_plan("dp=72,ep=72,re=0").experts_per_rank(384), 6);   // 384 / 72 = 5.33
  EXPECT_EQ(parse_parallel_plan("tp=8").redundant_for(384), 0);                   // no EP, no copies
  EXPECT_THROW(parse_parallel_plan("ep=8,tp=8,re=-1"), core::Error);
}

TEST(ExpertPlacement, EpNoLongerHasToDivideTheExperts) {
  const ModelSpec& m = model("deepseek-v4-pro");
  EXPECT_EQ(plan_sharding_problem(m, parse_parallel_plan("dp=72,ep=72")), "");
  EXPECT_EQ(plan_sharding_problem(m, parse_parallel_plan("tp=8,dp=9,ep=72")), "");
  // A rank must hold at least one expert: 500 ranks for 384 experts with none redundant cannot.
  EXPECT_NE(plan_sharding_problem(m, parse_parallel_plan("dp=500,ep=500,re=0")).find("exceeds the 384 routed + 0"),
            std::string::npos);
  EXPECT_NE(plan_sharding_problem(model("llama-3.1-70b"), parse_parallel_plan("tp=8,re=4")), "");
  ParallelPlan ep5;  // ep must still divide tp x dp (its ranks are laid on the stage's devices)
  ep5.tp = 8;
  ep5.ep = 5;
  EXPECT_NE(plan_sharding_problem(m, ep5).find("ep must divide"), std::string::npos);
}

// Each rank's weights are its expert slots; the replica holds the model plus the redundant copies.
TEST(ExpertPlacement, FootprintHoldsTheRedundantSlots) {
  const ModelSpec& m = model("deepseek-v4-pro");
  // tp=1: one device holds all 384 experts, each whole: bytes of one expert over all MoE layers.
  const double per_expert = footprint(m, parse_parallel_plan("tp=1")).expert_weight_bytes / 384;
  const Footprint f72 = footprint(m, parse_parallel_plan("dp=72,ep=72"));
  EXPECT_DOUBLE_EQ(f72.experts_per_device, 6.0);
  EXPECT_NEAR(f72.expert_weight_bytes / (6 * per_expert), 1.0, 1e-12);
  EXPECT_NEAR((f72.whole_weight_bytes() - m.weight_bytes()) / (48 * per_expert), 1.0, 1e-9);
  // Experts split tensor-parallel: tp=8 x dp=9 over ep=72 ranks gives expert_tp 1; tp=8,dp=8,ep=16 splits each 4 ways.
  const Footprint f16 = footprint(m, parse_parallel_plan("tp=8,dp=8,ep=16"));
  EXPECT_DOUBLE_EQ(f16.experts_per_device, 24.0);
  EXPECT_NEAR(f16.expert_weight_bytes / (24 * per_expert / 4), 1.0, 1e-12);
  const Footprint f64 = footprint(m, parse_parallel_plan("dp=64,ep=64,re=32"));
  EXPECT_DOUBLE_EQ(f64.experts_per_device, 7.0);
  EXPECT_NEAR(f64.expert_weight_bytes / (7 * per_expert), 1.0, 1e-12);
}

// The step reads the busiest rank's touched slots: with redundancy, more slots a rank than E / ep.
// Each slot is one whole expert at expert_tp 1, so the bytes scale as the busiest rank's slots.
TEST(ExpertPlacement, StepReadsTheBusiestRanksSlots) {
  const ModelSpec& m = model("deepseek-v4-pro");
  BatchShape b;
  b.decode_contexts.assign(64, 4096);
  const auto expert_bytes = [&](const char* plan) {
    double bytes = 0;
    for (const OpWork& o : batch_work(m, parse_parallel_plan(plan), b).ops) {
      bytes += o.op == "routed_experts" ? o.weight_read_bytes : 0.0;
    }
    return bytes;
  };
  const double ep8 = expert_bytes("dp=8,ep=8");  // 48 experts a rank, none redundant
  const double busiest8 = expected_busiest_rank_experts(384, 6, 64, 8);
  EXPECT_NEAR(expert_bytes("dp=72,ep=72") / ep8, expected_busiest_rank_experts(384, 6, 64, 72, 48) / busiest8, 1e-9);
  EXPECT_NEAR(expert_bytes("dp=64,ep=64,re=32") / ep8, expected_busiest_rank_experts(384, 6, 64, 64, 32) / busiest8,
              1e-9);
  // The busiest rank reads more than the mean rank's share of the touched experts.
  EXPECT_GT(expected_busiest_rank_experts(384, 6, 64, 72, 48), expected_distinct_experts(384, 6, 64) / 72);
}

// Monte Carlo of top-6-of-384 routing over 72 ranks of 6 slots: the 384 experts and 48 copies of
// the first 48 in slot order (rank = slot / 6); a token routed to a copied expert takes either copy.
// The closed form shares each slot's touch probability over the mean number of copies: within 5%.
TEST(ExpertPlacement, BusiestRankWithRedundantSlotsMatchesMonteCarlo) {
  core::RngStream rng(12, "tests/expert_placement/busiest");
  const int experts = 384, k = 6, ranks = 72, redundant = 48, slots = 6;
  std::vector<int> ids(experts);
  for (int tokens : {1, 4, 16, 64}) {
    const int trials = 1500;
    double sum = 0;
    for (int t = 0; t < trials; ++t) {
      std::vector<char> hit(static_cast<std::size_t>(experts + redundant), 0);
      for (int tok = 0; tok < tokens; ++tok) {
        std::iota(ids.begin(), ids.end(), 0);
        for (int j = 0; j < k; ++j) {
          const auto r = static_cast<std::size_t>(j) + rng.uniform_index(static_cast<std::uint64_t>(experts - j));
          std::swap(ids[static_cast<std::size_t>(j)], ids[r]);
          const int e = ids[static_cast<std::size_t>(j)];
          const bool copy = e < redundant && rng.uniform_index(2) == 1;
          hit[static_cast<std::size_t>(copy ? experts + e : e)] = 1;
        }
      }
      int most = 0;
      for (std::ptrdiff_t g = 0; g < ranks; ++g) {
        const auto first = hit.begin() + g * slots;
        most = std::max(most, static_cast<int>(std::count(first, first + slots, 1)));
      }
      sum += most;
    }
    EXPECT_NEAR(expected_busiest_rank_experts(experts, k, tokens, ranks, redundant) / (sum / trials), 1.0, 0.05)
        << tokens;
  }
}

// DeepSeek-R1's card states its experts' popularity (TensorRT-LLM's measured EP32 table): at EP8
// with 4,096 decode tokens the busiest rank's routed-expert math is the skew's share of the
// tokens, larger than uniform routing's sampling spread; the weights it streams (every
// expert of the rank is touched) and a model without the skew are unchanged.
TEST(ExpertPlacement, HotExpertsLoadTheBusiestRank) {
  const ModelSpec& r1 = model("deepseek-r1");
  ASSERT_GT(r1.ffn.expert_load_cv, 1.0);
  ModelSpec uniform = r1;
  uniform.ffn.expert_load_cv = 0;
  uniform.ffn.expert_load_cv_balanced = 0;
  BatchShape b;
  b.decode_contexts.assign(4096, 2048);
  const auto routed = [&](const ModelSpec& m, const char* plan, double OpWork::*field) {
    double sum = 0;
    for (const OpWork& o : batch_work(m, parse_parallel_plan(plan), b).ops) sum += o.op == "routed_experts" ? o.*field : 0.0;
    return sum;
  };
  const double skew = expected_busiest_rank_skew(256, 8, 0, r1.ffn.expert_load_cv, r1.ffn.expert_load_cv_balanced);
  const double sampling = expected_busiest_rank_assignments(8, 4096, 8) * 8 / (8.0 * 4096);
  ASSERT_GT(skew, sampling);  // the skew, not routing's sampling spread, sets the busiest rank here
  EXPECT_NEAR(routed(r1, "dp=8,ep=8", &OpWork::flops) / routed(uniform, "dp=8,ep=8", &OpWork::flops), skew / sampling,
              1e-9);
  EXPECT_DOUBLE_EQ(routed(r1, "dp=8,ep=8", &OpWork::weight_read_bytes),
                   routed(uniform, "dp=8,ep=8", &OpWork::weight_read_bytes));
  // Without expert parallelism there is no busiest rank to skew.
  EXPECT_DOUBLE_EQ(routed(r1, "tp=8", &OpWork::flops), routed(uniform, "tp=8", &OpWork::flops));
}

}  // namespace
}  // namespace agentsim::wl
