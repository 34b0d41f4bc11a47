#include "workloads/model/model_spec.hpp"

#include "sim/core/error.hpp"

#include "workloads/model/attention_cost.hpp"
#include "workloads/model/layer_stack.hpp"
#include "workloads/model/param_counts.hpp"

namespace agentsim::wl {

std::string_view to_string(AttentionKind k) {
  switch (k) {
    case AttentionKind::kGqa: return "gqa";
    case AttentionKind::kMla: return "mla";
    case AttentionKind::kV4HybridCsaHca: return "v4_hybrid_csa_hca";
    case AttentionKind::kV41Csa2: return "v41_csa2";
    case AttentionKind::kHybridKdaMla: return "hybrid_kda_mla";
  }
  return "?";
}

void PrecisionSpec::override_formats(std::string_view weights_name, std::string_view experts_name,
                                     std::string_view kv_name, bool routed_experts) {
  const auto group = [](const char* what, std::string_view name, hw::DType& dtype, int& block) {
    if (name.empty()) return;
    try {
      const WeightFormat f = reformat(name, {dtype, block});
      dtype = f.dtype;
      block = f.block;
    } catch (const core::Error& e) {
      throw core::Error(std::string(what) + ": " + e.detail());
    }
  };
  group("weights", weights_name, weights, weights_block);
  if (routed_experts) {
    group("experts", experts_name, experts, experts_block);
  } else {
    if (weights_name.empty()) group("experts", experts_name, weights, weights_block);
    experts = weights;
    experts_block = weights_block;
  }
  if (!kv_name.empty()) {
    const auto d = hw::parse_dtype(kv_name);
    if (!d) throw core::Error("kv-cache: unknown dtype '" + std::string(kv_name) + "'; valid: fp4, fp8, bf16, fp32");
    kv_cache = *d;
  }
}

void ModelSpec::sync_mirrors() {
  heads = attention.heads;
  kv_heads = attention.kv_heads;
  head_dim = attention.head_dim;
  activation_dtype = precision.activations;
}

double ModelSpec::total_params() const { return param_counts(*this).total(); }

double ModelSpec::weight_bytes() const {
  const ParamCounts c = param_counts(*this);
  // Matmul weights at the checkpoint's formats; embeddings, norms and routers
  // stay at the activation format, as in the FP8/FP4 releases.
  const double matmul = c.attention + c.indexers + c.dense_ffn + c.shared_experts + c.latent_proj;
  const double high = c.embedding + c.lm_head + c.norms + c.routers;
  return matmul * bytes_per_weight(precision.weights_format()) +
         c.routed_experts * bytes_per_weight(precision.experts_format()) +
         high * hw::bytes_per_element(precision.activations);
}

double ModelSpec::kv_bytes_per_token() const {
  if (kv_global_bytes_per_token > 0) return kv_global_bytes_per_token;
  double b = 0;
  for (const LayerKind& k : layer_stack(*this)) b += k.count * kv_growth_bytes_per_token(*this, k.attention);
  return b;
}

double ModelSpec::kv_bytes_for_context(double context_tokens) const {
  double b = kv_bytes_per_token() * context_tokens;
  for (const LayerKind& k : layer_stack(*this)) b += k.count * kv_bounded_bytes(*this, k.attention, context_tokens);
  return b;
}

double ModelSpec::linear_flops_per_token() const {
  double matmul = 0;
  for (const LayerKind& k : layer_stack(*this)) {
    matmul += k.count * (k.active_params(k.moe ? ffn.top_k : 0) - k.norm_params);
  }
  return 2.0 * matmul;
}

double ModelSpec::lm_head_flops_per_token() const { return 2.0 * static_cast<double>(vocab) * hidden; }

double ModelSpec::attention_flops_per_token(double context_tokens) const {
  double f = 0;
  for (const LayerKind& k : layer_stack(*this)) {
    const AttentionCost c = attention_cost(*this, k.attention, context_tokens, Phase::kDecode);
    f += k.count * (c.core_flops + c.indexer_flops);
  }
  return f;
}

double ModelSpec::activation_bytes_per_token() const {
  return hidden * hw::bytes_per_element(activation_dtype);
}

}  // namespace agentsim::wl
