#pragma once
// Parameter counts of a model by component, and the active parameters per
// token for each phase. Counting conventions (docs/models.md): the total is the
// main model without MTP modules; "active" counts every non-expert weight plus
// top_k routed experts, and by default the LM head but not the input embedding
// (a gather, not a matmul), which is DeepSeek's and OpenAI's convention.
#include "workloads/model/model_spec.hpp"

namespace agentsim::wl {

enum class Phase { kPrefill, kDecode };

// Which embedding matrices an active count includes (vendors differ).
enum class EmbeddingConvention {
  kEmbeddingAndHead,  // Qwen, Meta
  kHeadOnly,          // DeepSeek, OpenAI (default)
  kNeither,           // Z.ai GLM-4.5, DeepSeek-V4.1
};

struct ParamCounts {
  double attention = 0;       // incl. biases, q/k norms, sinks, compressors, output gates
  double indexers = 0;        // sparse-attention indexers
  double dense_ffn = 0;
  double routed_experts = 0;  // every routed expert
  double shared_experts = 0;
  double routers = 0;
  double latent_proj = 0;
  double norms = 0;           // layer norms, mHC, final norm
  double embedding = 0;
  double lm_head = 0;         // 0 when tied
  double mtp = 0;             // MTP modules (not in total())
  // Layer parameters (no embedding/head) one token touches, per phase.
  double active_layers_prefill = 0;
  double active_layers_decode = 0;

  double total() const;
  double total_with_mtp() const { return total() + mtp; }
  double active(Phase p, EmbeddingConvention c = EmbeddingConvention::kHeadOnly) const;
};

ParamCounts param_counts(const ModelSpec& m);

}  // namespace agentsim::wl
