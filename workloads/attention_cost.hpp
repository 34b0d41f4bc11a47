#pragma once
// Work and KV traffic of one query token in one layer of a given attention
// variant, as a function of how many tokens precede it. MLA runs in its
// absorbed form for decode (scores against the cached latent) and in its
// expanded form for prefill.
#include "workloads/layer_stack.hpp"
#include "workloads/param_counts.hpp"

namespace agentsim::wl {

struct AttentionCost {
  double attended_tokens = 0;  // KV entries the query reads (top-k / window capped)
  double core_flops = 0;       // QK^T and PV (or the linear-attention state update)
  double indexer_flops = 0;    // top-k scoring, linear in context (FP8)
  double kv_read_bytes = 0;    // KV entries, indexer keys and recurrent state read
  double kv_write_bytes = 0;   // bytes this token appends (window rings and state included)
};

AttentionCost attention_cost(const ModelSpec& m, LayerAttention a, double context_tokens, Phase phase);
// KV bytes per layer that grow with every token (window-capped layers: 0).
double kv_growth_bytes_per_token(const ModelSpec& m, LayerAttention a);
// KV bytes per layer that do not grow past a bound: window rings, recurrent state.
double kv_bounded_bytes(const ModelSpec& m, LayerAttention a, double context_tokens);

}  // namespace agentsim::wl
