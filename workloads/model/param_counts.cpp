#include "workloads/model/param_counts.hpp"

#include "workloads/model/layer_stack.hpp"

namespace agentsim::wl {

double ParamCounts::total() const {
  return attention + indexers + dense_ffn + routed_experts + shared_experts + routers + latent_proj +
         norms + embedding + lm_head;
}

double ParamCounts::active(Phase p, EmbeddingConvention c) const {
  double a = p == Phase::kPrefill ? active_layers_prefill : active_layers_decode;
  if (c == EmbeddingConvention::kEmbeddingAndHead) a += embedding + lm_head;
  if (c == EmbeddingConvention::kHeadOnly) a += lm_head;
  return a;
}

ParamCounts param_counts(const ModelSpec& m) {
  ParamCounts c;
  const std::vector<LayerKind> kinds = layer_stack(m);
  for (const LayerKind& k : kinds) {
    const double n = k.count;
    c.attention += n * k.attention_params;
    c.indexers += n * k.indexer_params;
    c.dense_ffn += n * k.dense_ffn_params;
    c.routed_experts += n * m.ffn.experts * k.routed_expert_params;
    c.shared_experts += n * k.shared_expert_params;
    c.routers += n * k.router_params;
    c.latent_proj += n * k.latent_proj_params;
    c.norms += n * k.norm_params;
    const double active = n * k.active_params(k.moe ? m.ffn.top_k : 0);
    c.active_layers_decode += active;
    if (k.prefill) c.active_layers_prefill += active;
  }
  c.norms += m.hidden;  // final norm
  c.embedding = static_cast<double>(m.vocab) * m.hidden;
  c.lm_head = m.tie_embeddings ? 0.0 : c.embedding;

  // DeepSeek-style MTP module: input projection 2h x h, three norms, and one more
  // layer shaped like the last one. V4.1's DSpark drafter has its own small
  // experts and is not modelled.
  const LayerKind& last = kinds.back();
  const bool deepseek_style = m.attention.kind != AttentionKind::kV41Csa2 &&
                              m.attention.kind != AttentionKind::kHybridKdaMla && last.moe;
  if (m.mtp_modules > 0 && deepseek_style) {
    const double h = m.hidden;
    const double one = 2.0 * h * h + 3.0 * h + last.total_params(m.ffn.experts) -
                       last.norm_params + 2.0 * h - last.indexer_params - last.latent_proj_params;
    c.mtp = m.mtp_modules * one;
  }
  return c;
}

}  // namespace agentsim::wl
