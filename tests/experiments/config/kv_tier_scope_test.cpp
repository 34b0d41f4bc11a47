// serving.kv_cache.tier_scope: lower-tier sizes per replica (default) or per node, where a
// node's tier is split over its replicas by device share and its links are shared by all
// of its GPUs at once.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include "experiments/config/experiment.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/runner.hpp"
#include "hwmodels/memory_tier.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace {

using agentsim::test_support::kRoot;
using agentsim::test_support::kTrace;

Experiment parse_scope(const std::string& scope) {
  return parse_experiment("name: scope\n"
                          "model: llama-3.1-8b\n"
                          "system: hgx-h200\n"
                          "deployment: {tp: 2}\n"
                          "serving:\n"
                          "  replicas: 4\n"
                          "  kv_cache: {host: \"2TB\", ssd: \"8TB\"" + scope + "}\n"
                          "workload:\n"
                          "  trace: " + kTrace + "\n"
                          "  concurrency: [1]\n"
                          "  warmup: \"1s\"\n"
                          "  window: \"10s\"\n",
                          kRoot + "/scope.yaml", kRoot);
}

TEST(KvTierScope, NodeSizesAreSplitByDeviceShareAndLinksSharedByTheWholeNode) {
  const Experiment rep = parse_scope("");
  const Experiment node = parse_scope(", tier_scope: node");
  const wl::Trace sessions = load_sessions(rep);
  const auto r = resolve_run(rep, first_valid_plan(rep), sessions.block_size_tokens).replica.kv;
  const auto n = resolve_run(node, first_valid_plan(node), sessions.block_size_tokens).replica.kv;
  ASSERT_EQ(r.tiers.size(), n.tiers.size());
  ASSERT_GE(r.tiers.size(), 3U);
  // A replica of 2 of the node's 8 GPUs holds 2/8 of the node's 2 TB host and 8 TB SSD tiers.
  const double per_token = r.kv_bytes_per_token;
  EXPECT_EQ(r.tiers[1].capacity_tokens, static_cast<long long>(2e12 / per_token));
  EXPECT_EQ(n.tiers[1].capacity_tokens, static_cast<long long>(2e12 * 0.25 / per_token));
  EXPECT_EQ(n.tiers[2].capacity_tokens, static_cast<long long>(8e12 * 0.25 / per_token));
  // Load-back bandwidth: the replica's 2 GPUs alone vs all 8 GPUs of the node at once.
  const auto tiers = hw::memory_tiers(rep.systems[0]);
  for (std::size_t i = 1; i < 3; ++i) {
    EXPECT_EQ(r.tiers[i].bw_Bps, hw::per_gpu_bw_Bps(tiers[i], 2) * 2) << i;
    EXPECT_EQ(n.tiers[i].bw_Bps, hw::per_gpu_bw_Bps(tiers[i], 8) * 2) << i;
    EXPECT_LE(n.tiers[i].bw_Bps, r.tiers[i].bw_Bps) << i;
  }
  // The SSD's own bandwidth is shared by every GPU: 8 loaders get less each than 2 do.
  EXPECT_LT(n.tiers[2].bw_Bps, r.tiers[2].bw_Bps);
}

TEST(KvTierScope, UnknownScopeIsAnError) {
  try {
    parse_scope(", tier_scope: rack");
    FAIL() << "accepted";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("serving.kv_cache.tier_scope: unknown tier_scope 'rack'; valid: replica, node"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace agentsim::exp
