// Which output token sends a streaming request's first chunk: SGLang waits for a whole
// stream interval, TensorRT-LLM and vLLM send the first token at once, and every engine
// streams the first token when each token is its own chunk.
#include "sim/serving/first_chunk.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace agentsim::serving {
namespace {

TEST(FirstChunk, SglangSendsItsFirstChunkAtTheStreamInterval) {
  for (int interval : {1, 4, 10}) EXPECT_EQ(first_chunk_output_token(Engine::kSglang, interval), interval);
}

TEST(FirstChunk, TrtllmAndVllmSendTheFirstTokenAtOnce) {
  for (int interval : {1, 10}) {
    EXPECT_EQ(first_chunk_output_token(Engine::kTrtllm, interval), 1);
    EXPECT_EQ(first_chunk_output_token(Engine::kVllm, interval), 1);
  }
}

TEST(FirstChunk, IntervalBelowOneTokenIsAnError) {
  EXPECT_THROW(first_chunk_output_token(Engine::kSglang, 0), core::Error);
  EXPECT_THROW(first_chunk_output_token(Engine::kTrtllm, -1), core::Error);
}

}  // namespace
}  // namespace agentsim::serving
