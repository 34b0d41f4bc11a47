#pragma once
// The output token whose production sends a streaming request's first chunk to the
// client, given the engine and the output tokens per chunk it was launched with
// (SGLang --stream-interval, TensorRT-LLM stream_interval, vLLM --stream-interval).
// A client's time to first token is this chunk's arrival, not the first token's.
#include "sim/serving/engine_overhead.hpp"

namespace agentsim::serving {

// 1-based index of the output token that leaves in the first chunk; `stream_interval_tokens`
// must be >= 1 (core::Error otherwise).
//   sglang: stream_interval_tokens. Its scheduler streams a request's output only when
//     `req.finished() or (req.stream and len(req.output_ids) % self.stream_interval == 0)`
//     (python/sglang/srt/managers/scheduler.py of the v0.4 line, scheduler_output_processor_mixin.py
//     of the v0.5 line), with no exception for the first token. Later SGLang tests
//     `% stream_interval == 1`, sending the first token at once; which versions behave which
//     way is not established here (docs/calibration.md, "Measured runs").
//   trtllm: 1. PyExecutor (tensorrt_llm/_torch/pyexecutor/py_executor.py, _handle_responses)
//     responds when `request.py_decoding_iter == 1 or request.is_finished or
//     request.py_decoding_iter % self.stream_interval == 0`, since NVIDIA/TensorRT-LLM PR #5836
//     ("Return context response immediately when stream_interval > 1", July 2025; before it a
//     response left only when the engine's iteration counter was a multiple of the interval).
//   vllm: 1. The V1 output processor (vllm/v1/engine/output_processor.py) sends a request's
//     output when it has finished, is the first token, or has stream_interval new tokens.
long long first_chunk_output_token(Engine engine, int stream_interval_tokens);

}  // namespace agentsim::serving
