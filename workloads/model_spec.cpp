#include "workloads/model_spec.hpp"

namespace agentsim::wl {

double ModelSpec::attention_params_per_layer() const {
  const double h = hidden;
  return h * (heads + 2.0 * kv_heads) * head_dim + static_cast<double>(heads) * head_dim * h;
}

double ModelSpec::ffn_params_per_layer() const { return 3.0 * hidden * ffn_intermediate; }

double ModelSpec::embedding_params() const { return static_cast<double>(vocab) * hidden; }

double ModelSpec::total_params() const {
  const double norms_per_layer = 2.0 * hidden;
  const double per_layer = attention_params_per_layer() + ffn_params_per_layer() + norms_per_layer;
  const double embeddings = embedding_params() * (tie_embeddings ? 1.0 : 2.0);
  return layers * per_layer + embeddings + hidden;  // + final norm
}

double ModelSpec::weight_bytes() const { return total_params() * hw::bytes_per_element(weight_dtype); }

double ModelSpec::kv_bytes_per_token() const {
  return static_cast<double>(layers) * 2.0 * kv_heads * head_dim * hw::bytes_per_element(kv_dtype);
}

double ModelSpec::linear_flops_per_token() const {
  return 2.0 * layers * (attention_params_per_layer() + ffn_params_per_layer());
}

double ModelSpec::lm_head_flops_per_token() const { return 2.0 * embedding_params(); }

double ModelSpec::attention_flops_per_token(double context_tokens) const {
  // QK^T and PV: 2 x 2 x heads x head_dim FLOPs per attended token per layer.
  return 4.0 * layers * heads * static_cast<double>(head_dim) * context_tokens;
}

double ModelSpec::activation_bytes_per_token() const {
  return hidden * hw::bytes_per_element(activation_dtype);
}

}  // namespace agentsim::wl
