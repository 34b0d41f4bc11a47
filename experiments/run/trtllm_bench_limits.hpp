#pragma once
// The engine settings `trtllm-bench throughput` picks for a run that states none: its
// max_batch_size and max_num_tokens from the KV cache that fits beside the weights
// (github.com/NVIDIA/TensorRT-LLM, tensorrt_llm/bench/build/tuning.py, calc_engine_setting and
// finetune_setting; tensorrt_llm/bench/build/dataclasses.py, ModelConfig), as TensorRT-LLM's
// perf-overview runs took them (docs/calibration.md, "TensorRT-LLM's max-throughput rows"):
//   KV bytes a token = 2 x layers x max(tp, num_key_value_heads) x head_size (head_dim, else
//     hidden / heads) x the KV element bytes (1 FP8, 0.5 NVFP4, else 2);
//   engine = the checkpoint's element count x its quant_algo's bytes (0.5 NVFP4, 1 FP8, else 2),
//     the count as safetensors states it: an NVFP4 tensor's weights two to a U8 element plus an
//     E4M3 scale per 16 (9/16 of an element a weight; the overcount TensorRT-LLM later fixed);
//   requests = (tp x pp x GPU memory - engine) x kv_fraction / (KV bytes a token x (isl + osl));
//   batch = min(requests, 4096) / pp, rounded up to 32 (at least 64) below 256, to 128 below
//     1024, else to 256; tokens = min(batch x (1 + isl / osl), 32768), rounded up to 256 (at
//     least 2048) below 4096, to 512 below 8192, else to 1024.
// `tp` is the run's --tp: the tensor-parallel degree times the attention-DP ranks (an attention-DP
// run's --tp spans them); TensorRT-LLM applies both limits to each attention-DP rank. A checkpoint
// whose quant_algo is none of NVFP4, FP8, FP8 block scales or unquantized (an MXFP4 one:
// TUNED_QUANTS in tensorrt_llm/bench/benchmark/utils/general.py) runs the LLM API's defaults
// instead (calibration/trtllm_defaults.hpp). Grouped-query attention only: a latent-attention
// model's settings depend on the release (later ones size its KV by the latent). Inputs as
// agentsim has them: the catalog model's parameters (MTP modules included, as the released
// checkpoints carry them) and GPU memory.
#include "hwmodels/system.hpp"
#include "workloads/model/model_spec.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::exp {

struct TrtllmBenchLimits {
  int max_batch_size = 0;  // requests running at once (per attention-DP rank)
  int max_num_tokens = 0;  // tokens one step may schedule (per attention-DP rank)
};

// The checkpoint's KV format is taken as the model's (`precision.kv_cache`). Throws core::Error
// (what it needs, or that the KV cache holds no request) where it does not apply.
TrtllmBenchLimits trtllm_bench_limits(const wl::ModelSpec& model, const hw::System& system,
                                      const wl::ParallelPlan& plan, long long isl, long long osl,
                                      double kv_fraction);

}  // namespace agentsim::exp
