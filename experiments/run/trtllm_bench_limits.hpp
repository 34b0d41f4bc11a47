#pragma once
// The engine settings `trtllm-bench throughput` picks for a run that states none: its
// max_batch_size and max_num_tokens from the KV cache that fits beside the weights
// (github.com/NVIDIA/TensorRT-LLM, tensorrt_llm/bench/build/tuning.py, calc_engine_setting and
// finetune_setting), as TensorRT-LLM's perf-overview runs took them (docs/calibration.md,
// "TensorRT-LLM's max-throughput rows"):
//   KV bytes a token = 2 x layers x max(tp, kv_heads) x head_dim x (1 for an FP8 KV cache, 0.5
//     NVFP4, else 2); engine = parameters x (0.5 NVFP4, 1 FP8, else 2) bytes;
//   requests = (tp x pp x GPU memory - engine) x kv_fraction / (KV bytes a token x (isl + osl));
//   batch = min(requests, 4096) / pp, rounded up to 32 (at least 64) below 256, to 128 below
//     1024, else to 256; tokens = min(batch x (1 + isl / osl), 32768), rounded up to 256 (at
//     least 2048) below 4096, to 512 below 8192, else to 1024.
// Inputs as agentsim has them: the catalog model's parameters and GPU memory (trtllm-bench reads
// the checkpoint's count and torch's total memory). Dense models without attention DP only: the
// perf-overview's MoE runs ran attention DP, which the heuristic above does not describe.
#include "hwmodels/system.hpp"
#include "workloads/model/model_spec.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::exp {

struct TrtllmBenchLimits {
  int max_batch_size = 0;  // requests running at once
  int max_num_tokens = 0;  // tokens one step may schedule
};

// Throws core::Error (what it needs, or that the KV cache holds no request) where it does not apply.
TrtllmBenchLimits trtllm_bench_limits(const wl::ModelSpec& model, const hw::System& system,
                                      const wl::ParallelPlan& plan, long long isl, long long osl,
                                      double kv_fraction);

}  // namespace agentsim::exp
