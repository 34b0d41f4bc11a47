// Policy names decode from one table per policy (core::NameTable): every name of
// serving.router, admission, preemption, kv_cache.retention and tier_scope and of
// deployment.overlap maps to its enum, printing reads the same table, and an unknown
// name is an error at file:line:key with a did-you-mean and the valid names.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <map>
#include <string>

#include "experiments/config/experiment.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace {

using agentsim::test_support::kRoot;
using agentsim::test_support::kTrace;
const std::string kFile = kRoot + "/names.yaml";

// One experiment naming every policy; `values` replaces a key's default name.
std::string body(std::map<std::string, std::string> values) {
  const auto v = [&](const std::string& key, const std::string& fallback) {
    const auto it = values.find(key);
    return it == values.end() ? fallback : it->second;
  };
  return "name: names\n"                                                 // 1
         "model: llama-3.1-8b\n"                                         // 2
         "system: hgx-h200\n"                                            // 3
         "deployment:\n"                                                 // 4
         "  tp: 1\n"                                                     // 5
         "  overlap: " + v("overlap", "none") + "\n"                     // 6
         "serving:\n"                                                    // 7
         "  router: " + v("router", "round_robin") + "\n"                // 8
         "  admission: " + v("admission", "reserve") + "\n"              // 9
         "  preemption: " + v("preemption", "recompute") + "\n"          // 10
         "  kv_cache:\n"                                                 // 11
         "    retention: " + v("retention", "lru") + "\n"                // 12
         "    ttl: \"10s\"\n"                                            // 13
         "    tier_scope: " + v("tier_scope", "replica") + "\n"          // 14
         "workload:\n"
         "  trace: " + kTrace + "\n"
         "  concurrency: [1]\n"
         "  warmup: \"1s\"\n"
         "  window: \"10s\"\n";
}

Experiment parse(std::map<std::string, std::string> values) {
  return parse_experiment(body(std::move(values)), kFile, kRoot);
}

std::string error_of(std::map<std::string, std::string> values) {
  try {
    parse(std::move(values));
  } catch (const core::Error& e) {
    return e.what();
  }
  return "accepted";
}

TEST(PolicyNames, EveryNameDecodesToItsEnumAndPrintsBack) {
  for (const auto& [name, value] : serving::kRouterPolicyNames) {
    EXPECT_EQ(parse({{"router", std::string(name)}}).serving.router, value) << name;
    EXPECT_EQ(core::name_of(serving::kRouterPolicyNames, value), name);
  }
  for (const auto& [name, value] : serving::kAdmissionNames) {
    EXPECT_EQ(parse({{"admission", std::string(name)}}).serving.admission, value) << name;
  }
  for (const auto& [name, value] : serving::kPreemptionNames) {
    EXPECT_EQ(parse({{"preemption", std::string(name)}}).serving.preemption, value) << name;
  }
  for (const auto& [name, value] : serving::kRetentionNames) {
    EXPECT_EQ(parse({{"retention", std::string(name)}}).serving.retention, value) << name;
  }
  for (const auto& [name, value] : kTierScopeNames) {
    EXPECT_EQ(parse({{"tier_scope", std::string(name)}}).serving.tier_scope, value) << name;
  }
  for (const auto& [name, value] : serving::kOverlapNames) {
    EXPECT_EQ(parse({{"overlap", std::string(name)}}).plans.at(0).deployment.overlap, value) << name;
    EXPECT_EQ(serving::to_string(value), name);
  }
  // The tables hold what the engine had: four routers, two admissions and preemptions,
  // three retentions, two scopes, three overlaps.
  EXPECT_EQ(serving::kRouterPolicyNames.size(), 4U);
  EXPECT_EQ(serving::kRetentionNames.size(), 3U);
  EXPECT_EQ(serving::kOverlapNames.size(), 3U);
}

TEST(PolicyNames, TheDefaultsAreTheFirstNames) {
  const ServingConfig s;
  EXPECT_EQ(s.router, serving::kRouterPolicyNames[0].second);
  EXPECT_EQ(s.admission, serving::kAdmissionNames[0].second);
  EXPECT_EQ(s.preemption, serving::kPreemptionNames[0].second);
  EXPECT_EQ(s.retention, serving::kRetentionNames[0].second);
  EXPECT_EQ(s.tier_scope, kTierScopeNames[0].second);
  EXPECT_EQ(DeploymentConfig{}.overlap, serving::kOverlapNames[0].second);
}

TEST(PolicyNames, AnUnknownNameIsAnErrorAtItsFileLineAndKey) {
  EXPECT_EQ(error_of({{"router", "kv_awre"}}),
            kFile + ":8: serving.router: unknown router 'kv_awre' (did you mean 'kv_aware'?); valid: round_robin, "
                    "least_loaded, session_affinity, kv_aware");
  EXPECT_EQ(error_of({{"admission", "lazy"}}),
            kFile + ":9: serving.admission: unknown admission 'lazy'; valid: reserve, on_demand");
  EXPECT_EQ(error_of({{"preemption", "swapp"}}),
            kFile + ":10: serving.preemption: unknown preemption 'swapp' (did you mean 'swap'?); valid: recompute, "
                    "swap");
  EXPECT_EQ(error_of({{"retention", "ttll"}}),
            kFile + ":12: serving.kv_cache.retention: unknown retention 'ttll' (did you mean 'ttl'?); valid: lru, ttl, "
                    "offload");
  EXPECT_EQ(error_of({{"tier_scope", "rack"}}),
            kFile + ":14: serving.kv_cache.tier_scope: unknown tier_scope 'rack'; valid: replica, node");
  EXPECT_EQ(error_of({{"overlap", "two_batches"}}),
            kFile + ":6: deployment.overlap: unknown overlap 'two_batches' (did you mean 'two_batch'?); valid: none, "
                    "comm, two_batch");
}

}  // namespace
}  // namespace agentsim::exp
