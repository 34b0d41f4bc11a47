#pragma once
// What a model is: its shape and numeric formats. Footprints and work per
// token are derived here, from the shape, so they can be checked by hand.
#include <string>

#include "hwmodels/dtype.hpp"

namespace agentsim::wl {

struct ModelSpec {
  std::string name;        // catalog name, e.g. "llama-3.1-70b"
  int layers = 0;
  int hidden = 0;
  int heads = 0;           // query heads
  int kv_heads = 0;        // GQA key/value heads
  int head_dim = 0;
  int ffn_intermediate = 0;  // dense SwiGLU width
  int vocab = 0;
  bool tie_embeddings = false;
  long long max_context = 0;  // tokens
  double published_total_params = 0;  // from the model card, for cross-checking total_params()
  hw::DType weight_dtype = hw::DType::kBf16;
  hw::DType kv_dtype = hw::DType::kBf16;
  hw::DType activation_dtype = hw::DType::kBf16;

  double attention_params_per_layer() const;  // Q, K, V, O projections
  double ffn_params_per_layer() const;        // gate, up, down
  double embedding_params() const;            // one vocab x hidden table
  double total_params() const;                // all weights, norms included
  double weight_bytes() const;                // total_params x weight dtype size
  // KV cache bytes one token adds (all layers, K and V).
  double kv_bytes_per_token() const;
  // FLOPs of the transformer's linear layers for one token (2 x params).
  double linear_flops_per_token() const;
  // FLOPs of the LM head for one sampled token.
  double lm_head_flops_per_token() const;
  // Attention score and value FLOPs of one query token attending to
  // `context_tokens` earlier tokens (all layers).
  double attention_flops_per_token(double context_tokens) const;
  // Bytes one token's activation vector occupies (hidden x activation dtype).
  double activation_bytes_per_token() const;
};

}  // namespace agentsim::wl
