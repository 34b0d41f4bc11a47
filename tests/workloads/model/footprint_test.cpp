#include "workloads/model/footprint.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"
#include "tests/workloads/model/model_fixtures.hpp"

namespace agentsim::wl {
namespace {

using test::model;

TEST(ParallelPlan, ParsesAndValidates) {
  const ParallelPlan p = parse_parallel_plan("tp=8,ep=16,dp=2,pp=2");
  EXPECT_EQ(p.tp, 8);
  EXPECT_EQ(p.ep, 16);
  EXPECT_EQ(p.attn_dp, 2);
  EXPECT_EQ(p.pp, 2);
  EXPECT_EQ(p.devices(), 32);
  EXPECT_EQ(p.expert_tp(), 1);
  EXPECT_THROW(parse_parallel_plan("tp=8,ep=3"), core::Error);   // 3 does not divide 8
  EXPECT_THROW(parse_parallel_plan("tq=8"), core::Error);
  EXPECT_THROW(parse_parallel_plan("tp=0"), core::Error);
}

// Every part times the devices holding a distinct copy of it gives back the whole model.
TEST(Footprint, ShardingSumsBackToTheWhole) {
  for (const char* name : {"llama-3.1-70b", "deepseek-v3", "gpt-oss-120b", "deepseek-v4.1-flash", "kimi-k3"}) {
    for (const char* plan : {"tp=1", "tp=8", "tp=8,ep=8", "tp=4,dp=2,ep=8,pp=2", "tp=1,dp=8,ep=8"}) {
      const ModelSpec& m = model(name);
      const Footprint f = footprint(m, parse_parallel_plan(plan));
      EXPECT_NEAR(f.whole_weight_bytes() / m.weight_bytes(), 1.0, 1e-12) << name << " " << plan;
    }
  }
}

TEST(Footprint, Llama70bOnTp8ByHand) {
  const ModelSpec& m = model("llama-3.1-70b");
  const Footprint f = footprint(m, parse_parallel_plan("tp=8"));
  // Norms (80 x 2 x 8192 + 8192) x 2 B are on every device; the rest splits 8 ways.
  const double norms = (80.0 * 2 * 8192 + 8192) * 2;
  EXPECT_DOUBLE_EQ(f.replicated_weight_bytes, norms);
  EXPECT_NEAR(f.sharded_weight_bytes, (m.weight_bytes() - norms) / 8, 1e-3);
  EXPECT_DOUBLE_EQ(f.kv_bytes_per_token, 327680.0 / 8);  // one KV head per device
  EXPECT_DOUBLE_EQ(footprint(m, parse_parallel_plan("tp=16")).kv_bytes_per_token, 327680.0 / 8);  // heads copied
}

TEST(Footprint, MlaLatentIsWholeOnEveryTpRank) {
  const Footprint f = footprint(model("deepseek-v3"), parse_parallel_plan("tp=8,ep=8"));
  EXPECT_DOUBLE_EQ(f.kv_bytes_per_token, 70272.0);
  EXPECT_DOUBLE_EQ(f.experts_per_device, 32.0);
}

TEST(Footprint, EngramOnHostIsReadOverTheHostLink) {
  const ModelSpec& m = model("deepseek-v4.1-flash");
  ParallelPlan plan = parse_parallel_plan("tp=2,ep=2");
  plan.engram_on_host = true;
  const Footprint host = footprint(m, plan);
  EXPECT_DOUBLE_EQ(host.host_bytes, 202.8e9);
  EXPECT_DOUBLE_EQ(host.host_read_bytes_per_token, 48.0 * 264);  // 48 rows of 256 B + 8 B scales
  EXPECT_DOUBLE_EQ(host.engram_hbm_bytes, 0.0);
  plan.engram_on_host = false;
  EXPECT_DOUBLE_EQ(footprint(m, plan).engram_hbm_bytes, 202.8e9 / 2);
}

}  // namespace
}  // namespace agentsim::wl
