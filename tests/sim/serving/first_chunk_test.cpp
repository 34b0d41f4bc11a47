// Which output token sends a streaming request's first chunk: every engine's current line
// (SGLang v0.5, TensorRT-LLM since PR #5836, vLLM V1) sends the first token at once, whatever
// the stream interval.
#include "sim/serving/first_chunk.hpp"

#include <gtest/gtest.h>

#include "sim/core/error.hpp"

namespace agentsim::serving {
namespace {

TEST(FirstChunk, SglangSendsTheFirstTokenAtOnceAtAnyInterval) {
  for (int interval : {1, 4, 10, 30}) EXPECT_EQ(first_chunk_output_token(Engine::kSglang, interval), 1);
}

TEST(FirstChunk, TrtllmVllmAndAtomSendTheFirstTokenAtOnce) {
  for (int interval : {1, 10}) {
    EXPECT_EQ(first_chunk_output_token(Engine::kTrtllm, interval), 1);
    EXPECT_EQ(first_chunk_output_token(Engine::kVllm, interval), 1);
    EXPECT_EQ(first_chunk_output_token(Engine::kAtom, interval), 1);
  }
}

TEST(FirstChunk, IntervalBelowOneTokenIsAnError) {
  EXPECT_THROW(first_chunk_output_token(Engine::kSglang, 0), core::Error);
  EXPECT_THROW(first_chunk_output_token(Engine::kTrtllm, -1), core::Error);
}

}  // namespace
}  // namespace agentsim::serving
