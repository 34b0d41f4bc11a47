// The disaggregated and wide-EP rows: an InferenceX `disagg P nx(PLAN) + D mx(PLAN)` row maps to
// that many prefill and decode replicas, each role with its plan; the wide-EP set's prefill-only
// and decode-only rows (one role's replicas spanning nodes) are listed unmapped with that reason.
#include <gtest/gtest.h>

#include <string>

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

TEST(MeasuredDisaggregated, WideEpRowsAreListedWithTheNodesTheirReplicaSpans) {
  const MeasuredSet s = load_measured(kMeasured + "/wide-ep");
  EXPECT_EQ(s.rows(), 5);
  EXPECT_TRUE(s.runs.empty());
  ASSERT_EQ(s.skipped.size(), 5u);
  for (const auto& r : s.skipped) {
    EXPECT_NE(r.reason.find("measurement of one replica spanning nodes"), std::string::npos) << r.id << ": " << r.reason;
  }
  EXPECT_NE(s.skipped[0].reason.find("4 nodes EP32"), std::string::npos) << s.skipped[0].reason;
  EXPECT_NE(s.skipped[3].reason.find("9 nodes EP72"), std::string::npos) << s.skipped[3].reason;
}

}  // namespace
}  // namespace agentsim::calib
