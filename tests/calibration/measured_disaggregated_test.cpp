// The disaggregated and wide-EP rows: an InferenceX `disagg P nx(PLAN) + D mx(PLAN)` row maps to
// that many prefill and decode replicas, each role with its plan; the wide-EP set's prefill-only
// and decode-only rows (one role's replica spanning nodes) map to that role at its stated batch.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "calibration/measured_names.hpp"
#include "calibration/measured_sources.hpp"

namespace agentsim::calib {
namespace {

const std::string kMeasured = std::string(AGENTSIM_SOURCE_DIR) + "/experiments/validation/measured";

TEST(MeasuredDisaggregated, EachRoleMapsWithItsPlan) {
  const MeasuredSet s = load_measured(kMeasured + "/serving-points-2");
  // Line 122: IXF-b200-dynamo-sglang-fp8-none-dis-1k1k-p1x8e8-d3x8e8-..., hgx-b200, 32 GPUs,
  // "disagg P 1x(TP8 EP8) + D 3x(TP8 EP8)"; line 113: "disagg P 1x(TP4 EP4 DPA) + D 5x(TP8 EP8)".
  const MeasuredRun* same = nullptr;
  const MeasuredRun* different = nullptr;
  for (const auto& r : s.runs) {
    if (r.line == 122) same = &r;
    if (r.line == 113) different = &r;
  }
  ASSERT_NE(same, nullptr);
  EXPECT_EQ(same->plan, "tp=8,ep=8");
  EXPECT_EQ(same->prefill_plan, "") << "both roles run `plan`";
  EXPECT_EQ(same->prefill_replicas, 1);
  EXPECT_EQ(same->decode_replicas, 3);
  EXPECT_EQ(same->gpus, 32);
  ASSERT_NE(different, nullptr);
  EXPECT_EQ(different->plan, "tp=8,ep=8");
  EXPECT_EQ(different->prefill_plan, "tp=1,ep=4,dp=4");
  EXPECT_EQ(different->prefill_replicas, 1);
  EXPECT_EQ(different->decode_replicas, 5);
  for (const auto& r : s.skipped) {
    EXPECT_EQ(r.reason.find("one plan for both roles"), std::string::npos) << r.line << ": " << r.reason;
  }
}

TEST(MeasuredDisaggregated, WideEpRowsMapToOneRoleAtItsStatedBatch) {
  const MeasuredSet s = load_measured(kMeasured + "/wide-ep");
  EXPECT_EQ(s.rows(), 5);
  ASSERT_EQ(s.runs.size(), 4u);
  for (int i = 0; i < 3; ++i) {  // EP32 prefill over four nodes, 16,384 tokens per device, TBO
    const MeasuredRun& r = s.runs[static_cast<std::size_t>(i)];
    EXPECT_EQ(r.scenario, "prefill-only") << r.id;
    EXPECT_EQ(r.plan, "tp=1,ep=32,dp=32,re=32") << r.id;  // EPLB's 32 redundant experts (sglang#6017)
    EXPECT_EQ(r.gpus, 32) << r.id;
    EXPECT_EQ(r.role_batch_per_device, 16384) << r.id;
    EXPECT_TRUE(r.two_batch_overlap) << r.id;
    EXPECT_FALSE(r.speculative) << r.id;
    EXPECT_EQ(r.osl, 1) << r.id;
    EXPECT_EQ(r.model, "deepseek-v3");
    EXPECT_FALSE(std::isnan(r.metrics[measured_metric_index("total_tok_s_per_gpu")])) << r.id;
  }
  EXPECT_EQ(s.runs[0].isl, 1000);
  EXPECT_EQ(s.runs[2].isl, 4000);
  const MeasuredRun& d = s.runs[3];  // EP72 decode over nine nodes, 256 sequences per device at 2,000 tokens
  EXPECT_EQ(d.scenario, "decode-only");
  EXPECT_EQ(d.plan, "tp=1,ep=72,dp=72,re=32");
  EXPECT_EQ(d.role_batch_per_device, 256);
  EXPECT_EQ(d.isl, 2000);
  EXPECT_DOUBLE_EQ(d.concurrency, 256.0 * 72);
  ASSERT_EQ(s.skipped.size(), 1u);  // the source's simulated MTP
  EXPECT_NE(s.skipped[0].reason.find("simulated speculative run"), std::string::npos) << s.skipped[0].reason;
}

TEST(MeasuredNames, OneRoleRunsStateTheirEpOverNodesAndTheirBatchPerDevice) {
  const RoleRun ok = map_role_run("decode-only: 9 nodes EP72, DP attention, DeepEP low-latency, TBO",
                                  "Batch size 256 per device (x72 devices = 18432 concurrent)");
  EXPECT_EQ(ok.reason, "");
  EXPECT_EQ(ok.scenario, "decode-only");
  EXPECT_EQ(ok.plan, "tp=1,ep=72,dp=72");
  EXPECT_EQ(ok.batch_per_device, 256);
  EXPECT_TRUE(ok.two_batch_overlap);
  const RoleRun no_tbo = map_role_run("prefill-only: 4 nodes EP32, DP attention", "16384 tokens/device batch.");
  EXPECT_EQ(no_tbo.reason, "");
  EXPECT_FALSE(no_tbo.two_batch_overlap);
  EXPECT_EQ(no_tbo.batch_per_device, 16384);
  // The GB200 rows of serving-points-2: ranks, not nodes and EP; a batch not stated per device.
  const RoleRun ranks = map_role_run("decode-only, 48 ranks large-scale EP", "Batch size 1408 for 2k ISL");
  EXPECT_NE(ranks.reason.find("states no 'N nodes EPm'"), std::string::npos) << ranks.reason;
  EXPECT_EQ(ranks.plan, "");
  const RoleRun no_batch = map_role_run("decode-only: 9 nodes EP72, DP attention", "Batch size 1408 for 2k ISL");
  EXPECT_NE(no_batch.reason.find("no batch per device"), std::string::npos) << no_batch.reason;
  EXPECT_EQ(no_batch.batch_per_device, 0);
  const RoleRun no_dpa = map_role_run("prefill-only: 4 nodes EP32", "16384 tokens/device batch.");
  EXPECT_NE(no_dpa.reason.find("no DP attention"), std::string::npos) << no_dpa.reason;
}

}  // namespace
}  // namespace agentsim::calib
