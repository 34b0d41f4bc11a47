#include "experiments/run/trtllm_bench_limits.hpp"

#include <algorithm>
#include <cmath>

#include "sim/core/error.hpp"

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

// Rounds `v` up to a multiple of `step`.
double round_up(double v, double step) { return step * std::ceil(v / step); }

}  // namespace

TrtllmBenchLimits trtllm_bench_limits(const wl::ModelSpec& model, const hw::System& system,
                                      const wl::ParallelPlan& plan, long long isl, long long osl,
                                      double kv_fraction) {
  if (model.ffn.experts > 0 || plan.attn_dp > 1) {
    throw core::Error("trtllm-bench's engine settings are modelled for dense models without attention DP only");
  }
  if (model.kv_heads <= 0 || model.head_dim <= 0 || model.layers <= 0) {
    throw core::Error("trtllm-bench's engine settings need the model's KV heads, head width and layers");
  }
  if (isl < 1 || osl < 1 || !(kv_fraction > 0 && kv_fraction <= 1)) {
    throw core::Error("trtllm-bench's engine settings need positive lengths and a KV fraction in (0, 1]");
  }
  const double kv_heads = std::max(plan.tp, model.kv_heads);
  const double token_gib = 2.0 * model.layers * kv_heads * model.head_dim *
                           bench_bytes_per_element(model.precision.kv_cache) / kGiB;
  const double gpus = static_cast<double>(plan.tp) * plan.pp;
  const double engine_gib = model.total_params() * bench_bytes_per_element(model.precision.weights) / kGiB;
  const double available_gib = system.accelerator.hbm_bytes / kGiB * gpus - engine_gib;
  const double requests = available_gib * kv_fraction / (token_gib * static_cast<double>(isl + osl));
  if (!(requests >= 1)) {
    throw core::Error("trtllm-bench's engine settings: the KV cache beside the weights holds no " +
                      std::to_string(isl + osl) + "-token request");
  }
  const double batch = std::min(requests, 4096.0) / plan.pp;
  const double tokens = std::min(batch * (1.0 + static_cast<double>(isl) / static_cast<double>(osl)), 32768.0);
  TrtllmBenchLimits out;
  const double b = batch < 256 ? std::max(64.0, round_up(batch, 32)) : batch < 1024 ? round_up(batch, 128)
                                                                                     : round_up(batch, 256);
  const double t = tokens < 4096 ? std::max(2048.0, round_up(tokens, 256)) : tokens < 8192 ? round_up(tokens, 512)
                                                                                            : round_up(tokens, 1024);
  out.max_batch_size = static_cast<int>(b);
  out.max_num_tokens = static_cast<int>(t);
  return out;
}

}  // namespace agentsim::exp
