#include "workloads/model/model_spec.hpp"

#include <gtest/gtest.h>

#include "tests/workloads/model/model_fixtures.hpp"

namespace agentsim::wl {
namespace {

const ModelSpec& llama70b() {
  return test::model("llama-3.1-70b");
}

TEST(ModelSpec, Llama70bParametersMatchThePublishedCount) {
  const ModelSpec& m = llama70b();
  EXPECT_NEAR(m.total_params() / m.published_total_params, 1.0, 0.01);
  // By hand: per layer 8192*(64+16)*128 + 64*128*8192 + 3*8192*28672 + 2*8192,
  // 80 layers, two 128256 x 8192 embeddings, final norm.
  const double per_layer = 8192.0 * 80 * 128 + 64.0 * 128 * 8192 + 3.0 * 8192 * 28672 + 2.0 * 8192;
  EXPECT_DOUBLE_EQ(m.total_params(), 80 * per_layer + 2.0 * 128256 * 8192 + 8192);
}

TEST(ModelSpec, Llama70bKvBytesPerToken) {
  EXPECT_DOUBLE_EQ(llama70b().kv_bytes_per_token(), 327680.0);  // 80 x 2 x 8 x 128 x 2 B
}

TEST(ModelSpec, AttentionFlopsGrowLinearlyWithContext) {
  const ModelSpec& m = llama70b();
  EXPECT_DOUBLE_EQ(m.attention_flops_per_token(1000), 4.0 * 80 * 64 * 128 * 1000);
  EXPECT_DOUBLE_EQ(m.attention_flops_per_token(2000), 2 * m.attention_flops_per_token(1000));
}

}  // namespace
}  // namespace agentsim::wl
