#pragma once
// What a model is: its shape and numeric formats, as plain data. Parameter
// counts, KV bytes and per-token work are derived from the shape so they can
// be checked by hand; layer_stack.hpp groups the layers into kinds.
#include <string>
#include <vector>

#include "hwmodels/dtype.hpp"
#include "workloads/model/weight_format.hpp"

namespace agentsim::wl {

enum class AttentionKind {
  kGqa,           // MHA/GQA (optionally sliding-window layers, sinks, biases)
  kMla,           // multi-head latent attention (optionally DSA sparse top-k indexer)
  kV4HybridCsaHca,  // DeepSeek-V4: compressed sparse (CSA) and heavily compressed (HCA) layers
  kV41Csa2,       // DeepSeek-V4.1: CSA2 with cross-layer KV reuse (global KV bytes published)
  kHybridKdaMla,  // Kimi K3: linear KDA layers (recurrent state) + gated MLA layers
};

struct AttentionSpec {
  AttentionKind kind = AttentionKind::kGqa;
  int heads = 0;
  int kv_heads = 0;   // GQA KV heads (MLA/V4 configs carry their own value)
  int head_dim = 0;   // GQA/V4/KDA head width
  bool qkv_bias = false;
  bool o_bias = false;
  bool qk_norm = false;
  bool attention_sinks = false;
  // MLA
  int q_lora_rank = 0;
  int kv_lora_rank = 0;
  int qk_nope_head_dim = 0;
  int qk_rope_head_dim = 0;
  int v_head_dim = 0;
  // Sliding window: `sliding_window_layers` layers attend at most `sliding_window` tokens.
  int sliding_window = 0;
  int sliding_window_layers = 0;
  // Sparse attention: each query attends at most `sparse_topk` tokens chosen by
  // a top-k indexer whose work is linear in context.
  int sparse_topk = 0;
  int indexer_heads = 0;
  int indexer_head_dim = 0;
  int indexer_layers = 0;  // layers that own an indexer (IndexShare layers reuse top-k)
  double kv_compression = 1.0;  // informational: KV relative to the predecessor model
  // DeepSeek-V4 family
  int o_lora_rank = 0;
  int o_groups = 0;
  int csa_layers = 0;
  int hca_layers = 0;
  int swa_only_layers = 0;
  int csa_compress_ratio = 4;
  int hca_compress_ratio = 128;
  // Kimi K3
  int kda_layers = 0;
  int mla_layers = 0;
  int kda_conv_kernel = 4;
  bool output_gate = false;
};

struct FfnSpec {
  int dense_layers = 0;        // dense-first layers (all layers when experts == 0)
  int dense_intermediate = 0;  // SwiGLU width of the dense layers
  int experts = 0;             // routed experts per MoE layer (0 = dense model)
  int top_k = 0;
  int shared_experts = 0;
  int expert_intermediate = 0;
  int shared_expert_intermediate = 0;  // 0 = expert_intermediate
  int latent_dim = 0;                  // LatentMoE width routed experts run at (0 = hidden)
  bool expert_bias = false;
  int hash_layers = 0;  // MoE layers routed by a static token hash (no router matmul)
  // Expert popularity: the coefficient of variation of the experts' routed loads in a step (0:
  // uniform routing), and of an expert-parallel rank's load once a load balancer has placed
  // redundant copies of the hot experts (moe_expectation.hpp, expected_busiest_rank_skew).
  double expert_load_cv = 0;
  double expert_load_cv_balanced = 0;
};

// Per-tensor-group numeric formats. Each weight group has its own block (WeightFormat): FP4
// keeps a 1-byte scale per block of elements, FP8 a 4-byte scale per block x block tile.
struct PrecisionSpec {
  hw::DType weights = hw::DType::kBf16;  // attention, dense FFN, shared experts, embeddings
  hw::DType experts = hw::DType::kBf16;  // routed experts
  hw::DType kv_cache = hw::DType::kBf16;
  hw::DType activations = hw::DType::kBf16;
  int weights_block = 0;  // elements per scale of `weights`; 0 = no block scales
  int experts_block = 0;  // elements per scale of `experts`
  WeightFormat weights_format() const { return {weights, weights_block}; }
  WeightFormat experts_format() const { return {experts, experts_block}; }
  // Formats given over the card's ("" keeps it; explain's flags, a measured row's precision): weight
  // groups through reformat(), the KV cache by dtype. A dense model's FFN is its weights, so there an
  // experts format names them when no weights format is given, and the experts mirror the weights.
  // Throws core::Error "weights: ...", "experts: ..." or "kv-cache: ...".
  void override_formats(std::string_view weights_name, std::string_view experts_name, std::string_view kv_name,
                        bool routed_experts);
};

// A model whose input (prefill) tokens run only the first `prefill_layers`
// layers (DeepSeek-V4.1 causal encoder); 0 = symmetric.
struct PhaseAsymmetry {
  int prefill_layers = 0;
  double published_prefill_active_params = 0;
};

// An n-gram lookup memory read as a fixed number of rows per token.
struct EngramSpec {
  double table_bytes = 0;       // values only
  double table_bytes_with_scales = 0;
  double rows_per_token = 0;
  double row_bytes = 0;
  double scale_bytes_per_row = 0;
  bool host_resident = false;   // default placement: host memory (true) or HBM
  double published_params = 0;
  std::vector<int> layers;      // transformer layers that read the tables (0-based, ascending)
};

// The drafter a model ships (catalog `speculative`): drafts per step, the probability
// that each draft position is accepted given the earlier ones were, and its cost.
struct SpeculativeSpec {
  std::string method;              // e.g. "mtp", "dspark"; empty: no drafter
  int draft_tokens = 0;            // k drafted per step
  std::vector<double> acceptance;  // size k, each in [0, 1]
  double draft_layers = 1.0;       // draft cost per draft token, in target-model layers
  bool present() const { return draft_tokens > 0; }
};

struct ModelSpec {
  std::string name;        // catalog name, e.g. "llama-3.1-70b"
  std::string display_name;
  int layers = 0;
  int hidden = 0;
  int vocab = 0;
  bool tie_embeddings = false;
  long long max_context = 0;  // tokens
  int mtp_modules = 0;        // multi-token-prediction modules (excluded from the total)
  int mtp_draft_tokens = 0;
  SpeculativeSpec speculative;  // the shipped drafter `deployment.speculative: auto` runs
  int hc_mult = 0;            // mHC residual streams (0 = plain residual)
  int attn_res_block = 0;     // Kimi K3 attention-residual block size (0 = none)
  AttentionSpec attention;
  FfnSpec ffn;
  PrecisionSpec precision;
  PhaseAsymmetry phase;
  EngramSpec engram;
  // KV-cache figures the shape alone does not give.
  double kv_indexer_bytes_per_token = 0;  // DSA indexer keys (added to the KV)
  double kv_global_bytes_per_token = 0;   // published whole-model KV per token (overrides the shape)
  // Published figures, for cross-checking the derived counts.
  double published_total_params = 0;
  double published_active_params = 0;
  double published_active_params_precise = 0;
  double published_total_params_with_mtp = 0;
  double published_total_params_checkpoint = 0;  // counted from the released files
  int min_devices = 0;

  // Kept flat for the serving code's existing call sites (mirror attention.*).
  int heads = 0;
  int kv_heads = 0;
  int head_dim = 0;
  hw::DType activation_dtype = hw::DType::kBf16;

  // Fills the flat mirrors from `attention`/`precision`; decoders call it last.
  void sync_mirrors();

  double total_params() const;  // main model, MTP excluded (params.hpp has the breakdown)
  // All weights at their group's dtype, block scales included.
  double weight_bytes() const;
  // KV bytes one more token adds at long context (all layers, K and V, indexer
  // keys); sliding-window layers are capped and so add nothing.
  double kv_bytes_per_token() const;
  // KV bytes a sequence of `context_tokens` holds: growing, window-capped and
  // fixed (recurrent state, SWA ring) parts together.
  double kv_bytes_for_context(double context_tokens) const;
  // FLOPs of the transformer's matmuls for one decode token (2 x active matmul
  // params), LM head and embedding excluded.
  double linear_flops_per_token() const;
  double lm_head_flops_per_token() const;  // one sampled token
  // Attention score/value (and indexer) FLOPs of one decode token attending
  // to `context_tokens` earlier tokens, all layers.
  double attention_flops_per_token(double context_tokens) const;
  // Bytes one token's activation vector occupies (hidden x activation dtype).
  double activation_bytes_per_token() const;
};

std::string_view to_string(AttentionKind k);

}  // namespace agentsim::wl
