// One spelling of a deployment everywhere: replicas x (plan) per pool and the GPUs it occupies.
#include <gtest/gtest.h>

#include "experiments/config/deployment_name.hpp"

namespace agentsim::exp {
namespace {

TEST(DeploymentName, PoolsAndGpus) {
  EXPECT_EQ(pools_text(9, "tp=8"), "9x(tp=8)");
  EXPECT_EQ(pools_text(1, "dp=64,ep=64", 1, "tp=4,ep=4,dp=4"), "P 1x(tp=4,ep=4,dp=4) + D 1x(dp=64,ep=64)");
  EXPECT_EQ(format_deployment("9x(tp=8)", 72, 72), "9x(tp=8) on 72 GPUs");
  EXPECT_EQ(format_deployment("8x(tp=8)", 64, 72), "8x(tp=8) on 64 of 72 GPUs (8 idle)");
  EXPECT_EQ(format_deployment("P 1x(tp=4,ep=4,dp=4) + D 1x(dp=64,ep=64)", 80, 72),
            "P 1x(tp=4,ep=4,dp=4) + D 1x(dp=64,ep=64) on 80 of 144 GPUs (64 idle)");
  EXPECT_EQ(format_deployment("2x(tp=8)", 16, 8), "2x(tp=8) on 16 GPUs") << "two whole systems";
  EXPECT_EQ(format_deployment("1x(tp=8)", 8, 0), "1x(tp=8)") << "no system: GPUs not named";
}

}  // namespace
}  // namespace agentsim::exp
