#pragma once
// A model's layers grouped into kinds (attention variant x dense/MoE FFN x
// phase), each with its per-layer parameter counts. Footprints and batch work
// are computed per kind and multiplied by its layer count.
#include <string>
#include <vector>

#include "workloads/model/model_spec.hpp"

namespace agentsim::wl {

enum class LayerAttention {
  kGqaFull,
  kGqaSliding,             // attends at most sliding_window tokens
  kMla,
  kMlaSparse,              // DSA top-k with its own indexer
  kMlaSparseSharedIndex,   // DSA top-k reusing an earlier layer's indexer (IndexShare)
  kV4Swa,                  // window only
  kV4Csa,                  // ratio-4 compressed KV + top-k indexer + window
  kV4Hca,                  // ratio-128 compressed KV, dense over it + window
  kV41Csa2,                // V4.1 CSA2 (top-k over reused compressed KV + window)
  kKda,                    // linear attention with a recurrent state
  kGatedMla,               // MLA with a full-rank output gate
};

struct LayerKind {
  LayerAttention attention = LayerAttention::kGqaFull;
  bool moe = false;
  bool prefill = true;  // prefill tokens run these layers (false: decode-only layers)
  int count = 0;        // layers of this kind
  // Per-layer parameter counts.
  double attention_params = 0;  // projections, biases, q/k norms, sinks, compressors, output gate
  double indexer_params = 0;
  double dense_ffn_params = 0;
  double routed_expert_params = 0;  // one routed expert
  double shared_expert_params = 0;  // all shared experts together
  double router_params = 0;
  double latent_proj_params = 0;    // LatentMoE down/up projections
  double norm_params = 0;           // layer norms, mHC mixers, attention-residual weights

  // e.g. "mla-sparse/moe", with " (decode only)" for decode-only layers.
  std::string name() const;
  // Parameters one token touches in one such layer (top_k routed experts).
  double active_params(int top_k) const;
  // All parameters of one such layer (every routed expert).
  double total_params(int experts) const;
};

std::vector<LayerKind> layer_stack(const ModelSpec& m);
std::string_view to_string(LayerAttention a);

}  // namespace agentsim::wl
