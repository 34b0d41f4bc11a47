#include "sim/serving/first_chunk.hpp"

#include <string>

#include "sim/core/error.hpp"

namespace agentsim::serving {

long long first_chunk_output_token(Engine engine, int stream_interval_tokens) {
  if (stream_interval_tokens < 1) {
    throw core::Error("stream interval must be at least 1 output token, got " + std::to_string(stream_interval_tokens));
  }
  switch (engine) {
    case Engine::kSglang:  // the v0.5 line: `% stream_interval == 1` above an interval of 1
    case Engine::kTrtllm:
    case Engine::kAtom:
    case Engine::kVllm: return 1;
  }
  return 1;
}

}  // namespace agentsim::serving
