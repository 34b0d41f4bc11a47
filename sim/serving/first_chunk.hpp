#pragma once
// The output token whose production sends a streaming request's first chunk to the
// client, given the engine and the output tokens per chunk it was launched with
// (SGLang --stream-interval, TensorRT-LLM stream_interval, vLLM --stream-interval).
// A client's time to first token is this chunk's arrival, not the first token's.
#include "sim/serving/engine_overhead.hpp"

namespace agentsim::serving {

// 1-based index of the output token that leaves in the first chunk; `stream_interval_tokens`
// must be >= 1 (core::Error otherwise). Every engine below sends the first token at once:
//   sglang: 1. The v0.5 line's scheduler (scheduler_output_processor_mixin.py, "origin
//     stream_interval logic") streams when `len(req.output_ids) % stream_interval == 1` for an
//     interval above 1 (`== 0` for 1): the first token, then every interval. The measured rows
//     agree: InferenceX's B200 FP8 runs (`--stream-interval 30`; the images rows record: v0.5.9, v0.5.12) report
//     median TTFTs below 29 decode steps at their own TPOT (e.g. 0.157 s at concurrency 1 against
//     29 x 7.2 ms = 0.209 s), which a first chunk at token 30 cannot give. (The v0.4 line streamed
//     at `% stream_interval == 0`, its first chunk at token stream_interval; no mapped row runs it.)
//   trtllm: 1. PyExecutor (tensorrt_llm/_torch/pyexecutor/py_executor.py, _handle_responses)
//     responds when `request.py_decoding_iter == 1 or request.is_finished or
//     request.py_decoding_iter % self.stream_interval == 0`, since NVIDIA/TensorRT-LLM PR #5836
//     ("Return context response immediately when stream_interval > 1", July 2025; before it a
//     response left only when the engine's iteration counter was a multiple of the interval).
//   vllm: 1. The V1 output processor (vllm/v1/engine/output_processor.py) sends a request's
//     output when it has finished, is the first token, or has stream_interval new tokens.
//   atom: 1. ATOM's OpenAI server streams each step's new tokens as the engine core posts them
//     (atom/model_engine/engine_core.py, _process_engine_step: a STREAM output per step).
long long first_chunk_output_token(Engine engine, int stream_interval_tokens);

}  // namespace agentsim::serving
