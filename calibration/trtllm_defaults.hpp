#pragma once
// TensorRT-LLM's batch limits when a run sets none: the LLM API's defaults (BuildConfig /
// TorchLlmArgs max_batch_size 2048 and max_num_tokens 8192; tensorrt_llm/llmapi/llm_args.py), which
// trtllm-bench also falls back to for a checkpoint its heuristic does not tune
// (tensorrt_llm/bench/benchmark/utils/general.py: DEFAULT_MAX_BATCH_SIZE, DEFAULT_MAX_NUM_TOKENS).
namespace agentsim::calib {

inline constexpr int kTrtllmDefaultMaxBatchSize = 2048;  // requests running at once
inline constexpr int kTrtllmDefaultMaxNumTokens = 8192;  // tokens one step may schedule

}  // namespace agentsim::calib
