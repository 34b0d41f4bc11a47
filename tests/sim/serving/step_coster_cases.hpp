#pragma once
// Shared by the step-cost engine's tests (tests/sim/serving/step_coster_test.cpp) and the
// calibrated-profile case above it (tests/experiments/run/profile_efficiency_test.cpp):
// batches, plan and option variants, and the check that pricing with and without a
// breakdown gives the same totals.
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/collective_pricer.hpp"
#include "sim/serving/price_memo.hpp"
#include "sim/serving/step_cost.hpp"
#include "sim/serving/step_coster.hpp"

namespace agentsim::serving::test::step_coster_cases {

// Every total the hot path fills, compared exactly (EXPECT_EQ on doubles).
inline void expect_same_totals(const StepCost& fast, const StepCost& ref, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(fast.total_s, ref.total_s);
  EXPECT_EQ(fast.compute_s, ref.compute_s);
  EXPECT_EQ(fast.memory_s, ref.memory_s);
  EXPECT_EQ(fast.comm_latency_s, ref.comm_latency_s);
  EXPECT_EQ(fast.comm_transfer_s, ref.comm_transfer_s);
  EXPECT_EQ(fast.overhead_s, ref.overhead_s);
  EXPECT_EQ(fast.flops, ref.flops);
  EXPECT_EQ(fast.weight_bytes, ref.weight_bytes);
  EXPECT_EQ(fast.kv_read_bytes, ref.kv_read_bytes);
  EXPECT_EQ(fast.kv_write_bytes, ref.kv_write_bytes);
  EXPECT_EQ(fast.host_bytes, ref.host_bytes);
  EXPECT_EQ(fast.allreduces, ref.allreduces);
  EXPECT_EQ(fast.allreduce_bytes, ref.allreduce_bytes);
  EXPECT_EQ(fast.compute_bound, ref.compute_bound);
  const StepBreakdown& f = fast.breakdown;
  const StepBreakdown& r = ref.breakdown;
  EXPECT_EQ(f.micro_batch_s, r.micro_batch_s);
  EXPECT_EQ(f.bubble_s, r.bubble_s);
  EXPECT_EQ(f.draft_s, r.draft_s);
  EXPECT_EQ(f.exposed_comm_s, r.exposed_comm_s);
  EXPECT_EQ(f.hidden_comm_s, r.hidden_comm_s);
  EXPECT_EQ(f.tokens_per_step, r.tokens_per_step);
  EXPECT_EQ(f.causes.host_link_s, r.causes.host_link_s);
  EXPECT_EQ(f.causes.network_s, r.causes.network_s);
  EXPECT_EQ(f.causes.overhead_s, r.causes.overhead_s);
  // Without per-op rows the hot path books no op causes: its floor share is the collective latency.
  EXPECT_EQ(f.causes.floor_s, ref.comm_latency_s);
  EXPECT_EQ(f.causes.compute_s, 0.0);
  EXPECT_EQ(f.causes.hbm_s, 0.0);
  EXPECT_TRUE(f.ops.empty());
  EXPECT_TRUE(f.collectives.empty());
  EXPECT_TRUE(f.notes.empty());
}

// Prices `b` with a breakdown (one-off) and without (prepared) and compares; a
// configuration one rejects the other must reject too.
inline int check(const StepBatch& b, const wl::ModelSpec& m, const hw::System& s, const StepCostOptions& o,
          const std::string& what) {
  StepCost ref;
  try {
    ref = step_cost(b, m, s, o);
  } catch (const core::Error&) {
    EXPECT_THROW(StepCoster(m, s, o).price(b), core::Error) << what;
    return 0;
  }
  const StepCoster coster(m, s, o);
  expect_same_totals(coster.price(b), ref, what + " [totals only]");
  // With a memo: cold (every position priced and kept), then warm (every position reused).
  PriceMemo memo;
  expect_same_totals(coster.price(b, memo), ref, what + " [memo, cold]");
  expect_same_totals(coster.price(b, memo), ref, what + " [memo, warm]");
  EXPECT_EQ(coster.price(b, true).breakdown.ops.size(), ref.breakdown.ops.size()) << what;
  EXPECT_NEAR(ref.breakdown.causes.sum(), ref.total_s, 1e-9 * ref.total_s) << what << ": causes add up";
  return 1;
}

inline std::vector<StepBatch> batches() {
  std::vector<StepBatch> out;
  out.push_back(parse_step_batch("decode=1@1"));
  out.push_back(parse_step_batch("prefill=1x1@0"));
  StepBatch dec;  // varied contexts, some past sparse top-k and sliding windows
  for (long long ctx : {17LL, 900LL, 2049LL, 4096LL, 13001LL, 65536LL, 131071LL}) dec.decodes.push_back({ctx});
  out.push_back(dec);
  StepBatch pre;  // chunks with cached tokens, one not completing its prompt
  pre.prefills = {{512, 0, true}, {2048, 30000, false}, {3, 7, true}, {8192, 1000, true}};
  out.push_back(pre);
  StepBatch mixed = dec;
  mixed.prefills = {{1000, 2500, true}, {77, 0, false}};
  out.push_back(mixed);
  StepBatch empty_chunk;  // a zero-token chunk: no work at all
  empty_chunk.prefills = {{0, 100, false}};
  out.push_back(empty_chunk);
  return out;
}

struct Variant {
  std::string name;
  std::string plan;
  int micro_batches = 1;
  Overlap overlap = Overlap::kNone;
  bool pricer = true;
  bool spec = false;
  double host_kv_load_tokens = 0;
  bool host_prefetch = false;
  bool cuda_graph = false;
  bool engram_on_host = false;
  bool engram_prefetch = true;
};

inline std::vector<Variant> variants() {
  return {
      {"tp1", "tp=1"},
      {"tp8 closed form", "tp=8", 1, Overlap::kNone, false},
      {"tp8 comm overlap", "tp=8", 1, Overlap::kCommCompute},
      {"tp8 ep8 two batch", "tp=8,ep=8", 1, Overlap::kTwoBatch},
      {"tp8 ep8 two batch closed form", "tp=8,ep=8", 1, Overlap::kTwoBatch, false},
      {"tp2 dp4 ep8 spec", "tp=2,dp=4,ep=8", 1, Overlap::kNone, true, true},
      {"tp2 pp2 micro2", "tp=2,pp=2", 2, Overlap::kNone},
      {"tp2 pp3 micro3 two batch spec", "tp=2,pp=3", 3, Overlap::kTwoBatch, true, true},
      {"tp4 host kv", "tp=4", 1, Overlap::kNone, true, false, 20000, false},
      {"tp4 host kv prefetch graph", "tp=4", 1, Overlap::kCommCompute, true, false, 20000, true, true},
      {"tp8 engram on host prefetch", "tp=8", 1, Overlap::kNone, true, false, 0, true, false, true},
      {"tp2 pp2 micro2 two batch engram on host", "tp=2,pp=2", 2, Overlap::kTwoBatch, true, false, 0, false, false,
       true},
      {"tp8 engram on host no prefetch", "tp=8", 1, Overlap::kNone, true, false, 0, false, false, true, false},
      {"tp4 engram in hbm", "tp=4", 1, Overlap::kNone, true, false, 0, false, false, false},
  };
}

// The options the plan tests price with: constant efficiencies, the plan's collectives.
inline StepCostOptions plan_options(const hw::System& s, const std::string& plan) {
  StepCostOptions o;
  o.efficiency = {0.7, 0.8, 0.8};
  o.plan = wl::parse_parallel_plan(plan);
  o.collectives = std::make_shared<const CollectivePricer>(s, o.plan);
  return o;
}

inline StepCostOptions make_options(const hw::System& s, const Variant& v) {
  StepCostOptions o;
  o.efficiency = {0.7, 0.8, 0.85};
  o.step_overhead_s = 3e-4;
  wl::ParallelPlan p = wl::parse_parallel_plan(v.plan);
  p.engram_on_host = v.engram_on_host;
  o.plan = p;
  if (v.pricer) o.collectives = std::make_shared<const CollectivePricer>(s, p);
  o.micro_batches = v.micro_batches;
  o.overlap = v.overlap;
  o.ep_imbalance = 1.25;
  o.cuda_graph = v.cuda_graph;
  o.host_kv_load_tokens = v.host_kv_load_tokens;
  o.host_prefetch = v.host_prefetch;
  o.engram_prefetch = v.engram_prefetch;
  if (v.spec) {
    o.spec.draft_tokens = 3;
    o.spec.acceptance = {0.8, 0.6, 0.5};
  }
  return o;
}

}  // namespace agentsim::serving::test::step_coster_cases
