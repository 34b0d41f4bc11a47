#include "experiments/run/trtllm_bench_limits.hpp"

#include <algorithm>
#include <cmath>

#include "calibration/trtllm_defaults.hpp"
#include "sim/core/error.hpp"
#include "workloads/model/param_counts.hpp"

namespace agentsim::exp {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// tuning.py's BYTES_PER_ELEM (NO_QUANT 2, FP8 1, NVFP4 0.5; anything else 2).
double bench_bytes_per_element(hw::DType d) {
  switch (d) {
    case hw::DType::kFp4: return 0.5;
    case hw::DType::kFp8: return 1.0;
    default: return 2.0;
  }
}

// Safetensors elements a weight of format `f` stores: FP4 two to a U8 element plus its block's
// scale, anything else one.
double elements_per_weight(wl::WeightFormat f) {
  if (f.dtype != hw::DType::kFp4) return 1.0;
  return 0.5 + (f.block > 0 ? 1.0 / f.block : 0.0);
}

// Rounds `v` up to a multiple of `step`.
double round_up(double v, double step) { return step * std::ceil(v / step); }

}  // namespace

TrtllmBenchLimits trtllm_bench_limits(const wl::ModelSpec& model, const hw::System& system,
                                      const wl::ParallelPlan& plan, long long isl, long long osl,
                                      double kv_fraction) {
  if (model.attention.kind != wl::AttentionKind::kGqa) {
    // Every attention kind but grouped-query caches a latent (MLA and its compressed variants).
    // TensorRT-LLM's later heuristic (tensorrt_llm/bench/tuning/heuristics.py) sizes an MLA model's
    // KV by its latent (kv_lora_rank + qk_rope_head_dim a layer: 576 elements for DeepSeek-R1), the
    // one above by num_key_value_heads x head_size (128 x 56 = 7,168): a 12x larger batch limit.
    throw core::Error("trtllm-bench's engine settings for a latent-attention model depend on the TensorRT-LLM release "
                      "(KV sized by its latent in later ones, by num_key_value_heads x head_size before), which the "
                      "run does not state");
  }
  if (model.kv_heads <= 0 || model.heads <= 0 || model.layers <= 0 || (model.head_dim <= 0 && model.hidden <= 0)) {
    throw core::Error("trtllm-bench's engine settings need the model's KV heads, head width and layers");
  }
  if (isl < 1 || osl < 1 || !(kv_fraction > 0 && kv_fraction <= 1)) {
    throw core::Error("trtllm-bench's engine settings need positive lengths and a KV fraction in (0, 1]");
  }
  const bool moe = model.ffn.experts > 0;
  const wl::WeightFormat weights = model.precision.weights_format();
  const wl::WeightFormat experts = moe ? model.precision.experts_format() : weights;
  const auto fp4_in_blocks_of = [&](int block) {
    return (weights.dtype == hw::DType::kFp4 && weights.block == block) ||
           (experts.dtype == hw::DType::kFp4 && experts.block == block);
  };
  TrtllmBenchLimits out;
  if (fp4_in_blocks_of(32)) {
    // An MXFP4 checkpoint's quant_algo (W4A8_MXFP4_* or W4A16_MXFP4) is not tuned: the defaults.
    out.max_batch_size = calib::kTrtllmDefaultMaxBatchSize;
    out.max_num_tokens = calib::kTrtllmDefaultMaxNumTokens;
    return out;
  }
  // The checkpoint's quant_algo: NVFP4 where any group is FP4, else FP8 where any is, else none.
  const hw::DType algo = weights.dtype == hw::DType::kFp4 || experts.dtype == hw::DType::kFp4   ? hw::DType::kFp4
                         : weights.dtype == hw::DType::kFp8 || experts.dtype == hw::DType::kFp8 ? hw::DType::kFp8
                                                                                                  : hw::DType::kBf16;
  const wl::ParamCounts p = wl::param_counts(model);
  const double elements = (p.attention + p.indexers + p.latent_proj + p.dense_ffn + p.shared_experts) *
                              elements_per_weight(weights) +
                          p.routed_experts * elements_per_weight(experts) + p.routers + p.norms + p.embedding +
                          p.lm_head + p.mtp;
  const int tp = plan.tp * std::max(1, plan.attn_dp);  // the run's --tp
  // head_dim, else hidden_size // num_attention_heads (dataclasses.py).
  const double head_size = model.head_dim > 0 ? model.head_dim : std::floor(static_cast<double>(model.hidden) / model.heads);
  const double kv_heads = std::max(tp, model.kv_heads);
  const double token_gib = 2.0 * model.layers * kv_heads * head_size * bench_bytes_per_element(model.precision.kv_cache) / kGiB;
  const double gpus = static_cast<double>(tp) * plan.pp;
  const double engine_gib = elements * bench_bytes_per_element(algo) / kGiB;
  const double available_gib = system.accelerator.hbm_bytes / kGiB * gpus - engine_gib;
  const double requests = available_gib * kv_fraction / (token_gib * static_cast<double>(isl + osl));
  if (!(requests >= 1)) {
    throw core::Error("trtllm-bench's engine settings: the KV cache beside the weights holds no " +
                      std::to_string(isl + osl) + "-token request");
  }
  const double batch = std::min(requests, 4096.0) / plan.pp;
  const double tokens = std::min(batch * (1.0 + static_cast<double>(isl) / static_cast<double>(osl)), 32768.0);
  const double b = batch < 256 ? std::max(64.0, round_up(batch, 32)) : batch < 1024 ? round_up(batch, 128)
                                                                                     : round_up(batch, 256);
  const double t = tokens < 4096 ? std::max(2048.0, round_up(tokens, 256)) : tokens < 8192 ? round_up(tokens, 512)
                                                                                            : round_up(tokens, 1024);
  out.max_batch_size = static_cast<int>(b);
  out.max_num_tokens = static_cast<int>(t);
  return out;
}

}  // namespace agentsim::exp
