// Two-batch overlap's exposed communication follows SGLang's stage schedule
// (comm_exposure.hpp): which op of which micro-batch each expert all-to-all flies over.
#include <gtest/gtest.h>

#include "sim/serving/comm_exposure.hpp"

namespace agentsim::serving {
namespace {

// One micro-batch over 10 MoE layers (times in seconds, whole step).
TwoBatchSide side(double dispatch_s, double combine_s) {
  TwoBatchSide s;
  s.prep_s = 1.0;
  s.core_s = 2.0;
  s.shared_s = 0.5;
  s.experts_s = 4.0;
  s.dispatch_s = dispatch_s;
  s.combine_s = combine_s;
  s.moe_layers = 10;
  return s;
}

double exposed(bool decode, const TwoBatchSide& a, const TwoBatchSide& b, double other_comm_s = 0) {
  const double comm = a.dispatch_s + a.combine_s + b.dispatch_s + b.combine_s + other_comm_s;
  const CommExposure e = two_batch_exposure(decode, a, b, 0.25 * comm, 0.75 * comm);
  return e.alpha_s + e.beta_s;
}

TEST(TwoBatchExposure, DecodeDispatchFliesOverSharedExpertsAndTheOtherAttentionProjections) {
  // Dispatch 3.0 over shared 0.5 + prep 1.0: 1.5 exposed a side; combine 1.0 under core 2.0;
  // the last layer's combine, 1.0 / 10, has nothing to fly over.
  const TwoBatchSide a = side(3.0, 1.0);
  EXPECT_NEAR(exposed(true, a, a), 2 * 1.5 + 0.1, 1e-12);
}

TEST(TwoBatchExposure, DecodeCombineFliesOverTheOtherAttentionCoreOnly) {
  // Combine 5.0 over core 2.0: 3.0 exposed a side; the routed experts (4.0) cover nothing.
  TwoBatchSide a = side(1.0, 5.0);
  EXPECT_NEAR(exposed(true, a, a), 2 * 3.0 + 2.0 / 10, 1e-12);
  a.experts_s = 40.0;
  EXPECT_NEAR(exposed(true, a, a), 2 * 3.0 + 2.0 / 10, 1e-12);
}

TEST(TwoBatchExposure, PrefillCombineFliesOverTheOtherRoutedExperts) {
  // Prefill: combine 5.0 over the other's experts 4.0 + own shared 0.5; dispatch 1.0 over the
  // other's shared + prep + core, 3.5, hidden.
  const TwoBatchSide a = side(1.0, 5.0);
  EXPECT_NEAR(exposed(false, a, a), 2 * 0.5 + 4.0 / 10, 1e-12);
}

TEST(TwoBatchExposure, InStreamCollectivesStayWhole) {
  const TwoBatchSide a = side(0.1, 0.1);
  const double hidden_a2a = exposed(true, a, a);
  EXPECT_NEAR(exposed(true, a, a, 7.0) - hidden_a2a, 7.0, 1e-12);
}

TEST(TwoBatchExposure, NeverExposesMoreThanTheCommunication) {
  TwoBatchSide a = side(3.0, 5.0);
  a.prep_s = a.core_s = a.shared_s = a.experts_s = 0;
  EXPECT_NEAR(exposed(true, a, a), 16.0, 1e-12);
  EXPECT_NEAR(exposed(false, a, a), 16.0, 1e-12);
}

TEST(TwoBatchExposure, SplitsLatencyAndTransferProRata) {
  const TwoBatchSide a = side(3.0, 1.0);
  const CommExposure e = two_batch_exposure(true, a, a, 2.0, 6.0);
  EXPECT_NEAR(e.alpha_s / (e.alpha_s + e.beta_s), 0.25, 1e-12);
}

}  // namespace
}  // namespace agentsim::serving
