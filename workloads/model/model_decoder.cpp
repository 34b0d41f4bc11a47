#include "workloads/model/model_decoder.hpp"

#include <array>
#include <cmath>
#include <span>
#include <string>

#include "hwmodels/hardware_decoder.hpp"
#include "sim/core/decode_helpers.hpp"
#include "workloads/model/attention_cost.hpp"
#include "workloads/model/layer_stack.hpp"

namespace agentsim::wl {
using core::OptionSpec;
using core::YamlNode;
using hw::decode_dtype;

namespace {

constexpr std::array kModelKeys = {
    OptionSpec{"name", "string", "", "catalog name"},
    OptionSpec{"display_name", "string", "", "human-readable name"},
    OptionSpec{"published_total_params", "number", "", "published main-model parameter count (MTP excluded)"},
    OptionSpec{"published_active_params", "number", "", "published active parameters per (decode) token"},
    OptionSpec{"published_active_params_precise", "number", "0", "unrounded active count when a source gives one"},
    OptionSpec{"published_total_params_with_mtp", "number", "0", "published count including MTP modules"},
    OptionSpec{"published_total_params_checkpoint", "number", "0", "parameter count of the shipped checkpoint files"},
    OptionSpec{"published_engram_params", "number", "0", "published Engram table parameters"},
    OptionSpec{"layers", "integer", "", "transformer layers"},
    OptionSpec{"encoder_layers", "integer", "0", "causal-encoder layers (informational; see phase_asymmetric)"},
    OptionSpec{"decoder_layers", "integer", "0", "decoder layers (informational)"},
    OptionSpec{"hidden", "integer", "", "hidden size"},
    OptionSpec{"vocab", "integer", "", "vocabulary size"},
    OptionSpec{"tie_embeddings", "bool", "false", "input and output embeddings shared"},
    OptionSpec{"max_context", "integer", "", "context window in tokens"},
    OptionSpec{"mtp_modules", "integer", "0", "multi-token-prediction modules"},
    OptionSpec{"mtp_draft_tokens", "integer", "0", "tokens drafted per speculative round"},
    OptionSpec{"min_gpus", "integer", "0", "fewest accelerators the model is served on"},
    OptionSpec{"speculative", "map", "", "shipped drafter: method, draft, acceptance per position, draft_layers"},
    OptionSpec{"attention", "map", "", "attention shape"},
    OptionSpec{"ffn", "map", "", "feed-forward shape"},
    OptionSpec{"mhc", "map", "", "manifold-constrained hyper-connections"},
    OptionSpec{"attn_res", "map", "", "attention residuals"},
    OptionSpec{"precision", "map", "", "numeric formats per tensor group"},
    OptionSpec{"phase_asymmetric", "map", "", "prefill tokens run fewer layers"},
    OptionSpec{"engram", "map", "", "n-gram lookup memory"},
    OptionSpec{"kv_cache", "map", "", "KV-cache figures and cross-checks"},
};
constexpr std::array kAttentionKeys = {
    OptionSpec{"kind", "string", "", "gqa | mla | v4_hybrid_csa_hca | v41_csa2 | hybrid_kda_mla"},
    OptionSpec{"heads", "integer", "", "query heads"},
    OptionSpec{"kv_heads", "integer", "", "key/value heads (config value for MLA)"},
    OptionSpec{"head_dim", "integer", "0", "head width (GQA, V4, KDA)"},
    OptionSpec{"qkv_bias", "bool", "false", "q/k/v projection biases"},
    OptionSpec{"o_bias", "bool", "false", "output projection bias"},
    OptionSpec{"qk_norm", "bool", "false", "per-head q/k RMSNorm"},
    OptionSpec{"partial_rotary", "number", "1", "fraction of head dims rotated (informational)"},
    OptionSpec{"positional", "string", "rope", "positional encoding (informational)"},
    OptionSpec{"attention_sinks", "bool", "false", "learned per-head sink logits"},
    OptionSpec{"q_lora_rank", "integer", "0", "MLA query low-rank width"},
    OptionSpec{"kv_lora_rank", "integer", "0", "MLA latent width"},
    OptionSpec{"qk_nope_head_dim", "integer", "0", "MLA non-rotary key width"},
    OptionSpec{"qk_rope_head_dim", "integer", "0", "MLA rotary key width"},
    OptionSpec{"v_head_dim", "integer", "0", "MLA value width"},
    OptionSpec{"o_lora_rank", "integer", "0", "V4 low-rank output width"},
    OptionSpec{"o_groups", "integer", "0", "V4 output projection groups"},
    OptionSpec{"sliding_window", "integer", "0", "window in tokens"},
    OptionSpec{"sliding_window_layers", "integer", "0", "layers with a window"},
    OptionSpec{"swa_only_layers", "integer", "0", "V4 window-only layers"},
    OptionSpec{"csa_layers", "integer", "0", "V4 compressed sparse layers"},
    OptionSpec{"hca_layers", "integer", "0", "V4 heavily compressed layers"},
    OptionSpec{"csa_compress_ratio", "integer", "4", "tokens per CSA entry"},
    OptionSpec{"hca_compress_ratio", "integer", "128", "tokens per HCA entry"},
    OptionSpec{"compress_ratios_used", "list of integers", "", "V4.1 compression ratios (informational)"},
    OptionSpec{"sparse_topk", "integer", "0", "tokens each query attends (0 = dense)"},
    OptionSpec{"indexer_heads", "integer", "0", "top-k indexer heads"},
    OptionSpec{"indexer_head_dim", "integer", "0", "top-k indexer head width"},
    OptionSpec{"indexer_layers", "integer", "0", "layers owning an indexer (0 = all, when sparse)"},
    OptionSpec{"indexer_shared_layers", "integer", "0", "layers reusing an earlier top-k (must sum with indexer_layers to layers)"},
    OptionSpec{"kv_compression", "number", "1", "KV relative to the predecessor (informational)"},
    OptionSpec{"kda_layers", "integer", "0", "K3 linear-attention layers"},
    OptionSpec{"mla_layers", "integer", "0", "K3 gated MLA layers"},
    OptionSpec{"kda_conv_kernel", "integer", "4", "KDA short-convolution width"},
    OptionSpec{"kda_state_bytes_per_layer", "number", "0", "cross-check of the KDA state size"},
    OptionSpec{"output_gate", "string", "", "output gate kind (present = gated)"},
};
constexpr std::array kFfnKeys = {
    OptionSpec{"dense_layers", "integer", "0", "dense-first layers"},
    OptionSpec{"dense_intermediate", "integer", "0", "dense SwiGLU width"},
    OptionSpec{"experts", "integer", "0", "routed experts per MoE layer"},
    OptionSpec{"top_k", "integer", "0", "experts per token"},
    OptionSpec{"shared_experts", "integer", "0", "always-on experts"},
    OptionSpec{"expert_intermediate", "integer", "0", "expert SwiGLU width"},
    OptionSpec{"shared_expert_intermediate", "integer", "0", "shared expert width (0 = expert_intermediate)"},
    OptionSpec{"latent_dim", "integer", "0", "LatentMoE expert width"},
    OptionSpec{"expert_bias", "bool", "false", "experts carry biases"},
    OptionSpec{"hash_layers", "integer", "0", "MoE layers routed by token hash"},
    OptionSpec{"expert_load_cv", "number", "0",
               "coefficient of variation of the experts' routed loads in a step (hot experts; 0 = uniform routing)"},
    OptionSpec{"expert_load_cv_balanced", "number", "0",
               "coefficient of variation of an expert-parallel rank's load with redundant experts placed by a load balancer"},
    OptionSpec{"n_group", "integer", "0", "router groups (informational)"},
    OptionSpec{"topk_group", "integer", "0", "groups per token (informational)"},
    OptionSpec{"scoring_func", "string", "", "router scoring (informational)"},
    OptionSpec{"router", "string", "", "router kind (informational)"},
    OptionSpec{"activation", "string", "swiglu", "FFN activation (informational)"},
};
constexpr std::array kPrecisionKeys = {
    OptionSpec{"weights", "format", "", "attention, dense FFN, shared experts: bf16, fp32, fp8, fp4, nvfp4, mxfp4"},
    OptionSpec{"experts", "format", "weights", "routed experts (as weights)"},
    OptionSpec{"kv_cache", "dtype", "", "KV cache"},
    OptionSpec{"activations", "dtype", "bf16", "activations, embeddings, norms"},
    OptionSpec{"block_scale", "integer", "0",
               "elements per scale (FP4: 1-D blocks, FP8: square tiles) of fp8 / fp4 groups; nvfp4 and mxfp4 name their own (16, 32)"},
};
constexpr std::array kMhcKeys = {
    OptionSpec{"hc_mult", "integer", "", "residual streams"},
    OptionSpec{"sinkhorn_iters", "integer", "0", "Sinkhorn iterations (informational)"},
};
constexpr std::array kAttnResKeys = {OptionSpec{"block_size", "integer", "", "layers per block"}};
constexpr std::array kPhaseKeys = {
    OptionSpec{"prefill_layers", "integer", "", "layers prefill tokens run"},
    OptionSpec{"prefill_active_params", "number", "0", "published active params per input token"},
    OptionSpec{"decode_active_params", "number", "0", "published active params per output token"},
};
constexpr std::array kEngramKeys = {
    OptionSpec{"table_bytes", "size", "", "table values"},
    OptionSpec{"table_bytes_with_scales", "size", "table_bytes", "table with scales"},
    OptionSpec{"rows_per_table", "integer", "0", "rows per table (informational)"},
    OptionSpec{"rows_per_token", "number", "", "rows read per token"},
    OptionSpec{"row_bytes", "number", "", "bytes per row"},
    OptionSpec{"scale_bytes_per_row", "number", "0", "scale bytes per row"},
    OptionSpec{"layers", "list of integers", "", "layers reading the tables (informational)"},
    OptionSpec{"dtype", "dtype", "", "row format (informational)"},
    OptionSpec{"placement_default", "string", "gpu", "gpu | host"},
};
constexpr std::array kKvKeys = {
    OptionSpec{"bytes_per_token", "number", "", "cross-check: growing KV bytes per token"},
    OptionSpec{"bytes_per_token_all_layers", "number", "", "cross-check: bytes per token within the window"},
    OptionSpec{"bytes_per_token_bf16", "number", "", "cross-check: growing KV bytes at BF16"},
    OptionSpec{"window_bytes_per_seq_bf16", "number", "", "cross-check: window rings per sequence at BF16"},
    OptionSpec{"recurrent_state_bytes_per_seq", "number", "", "cross-check: linear-attention state per sequence"},
    OptionSpec{"indexer_bytes_per_token", "number", "0", "sparse-indexer key bytes per token (all layers)"},
    OptionSpec{"global_bytes_per_token", "number", "0", "published whole-model KV bytes per token"},
    OptionSpec{"persistent_ratio_vs_v4_flash", "number", "0", "informational"},
};

int int_or(const YamlNode& n, std::string_view key, int fallback) {
  auto v = n.find(key);
  if (!v) return fallback;
  const long long x = v->as_integer();
  if (x < 0 || x > 1000000000) throw v->error("must be in [0, 1e9]");
  return static_cast<int>(x);
}
bool bool_or(const YamlNode& n, std::string_view key, bool fallback) {
  auto v = n.find(key);
  return v ? v->as_bool() : fallback;
}

wl::AttentionKind attention_kind(const YamlNode& n) {
  const std::string s = n.as_string();
  if (s == "gqa") return wl::AttentionKind::kGqa;
  if (s == "mla") return wl::AttentionKind::kMla;
  if (s == "v4_hybrid_csa_hca") return wl::AttentionKind::kV4HybridCsaHca;
  if (s == "v41_csa2") return wl::AttentionKind::kV41Csa2;
  if (s == "hybrid_kda_mla") return wl::AttentionKind::kHybridKdaMla;
  throw n.error("unknown attention kind '" + s + "'; valid: gqa, mla, v4_hybrid_csa_hca, v41_csa2, hybrid_kda_mla");
}

void decode_attention(const YamlNode& n, wl::ModelSpec& m) {
  n.check_keys(kAttentionKeys);
  wl::AttentionSpec& a = m.attention;
  a.kind = attention_kind(n.at("kind"));
  a.heads = positive_int(n.at("heads"));
  a.kv_heads = positive_int(n.at("kv_heads"));
  a.head_dim = int_or(n, "head_dim", 0);
  a.qkv_bias = bool_or(n, "qkv_bias", false);
  a.o_bias = bool_or(n, "o_bias", false);
  a.qk_norm = bool_or(n, "qk_norm", false);
  a.attention_sinks = bool_or(n, "attention_sinks", false);
  a.q_lora_rank = int_or(n, "q_lora_rank", 0);
  a.kv_lora_rank = int_or(n, "kv_lora_rank", 0);
  a.qk_nope_head_dim = int_or(n, "qk_nope_head_dim", 0);
  a.qk_rope_head_dim = int_or(n, "qk_rope_head_dim", 0);
  a.v_head_dim = int_or(n, "v_head_dim", 0);
  a.o_lora_rank = int_or(n, "o_lora_rank", 0);
  a.o_groups = int_or(n, "o_groups", 0);
  a.sliding_window = int_or(n, "sliding_window", 0);
  a.sliding_window_layers = int_or(n, "sliding_window_layers", 0);
  a.swa_only_layers = int_or(n, "swa_only_layers", 0);
  a.csa_layers = int_or(n, "csa_layers", 0);
  a.hca_layers = int_or(n, "hca_layers", 0);
  a.csa_compress_ratio = int_or(n, "csa_compress_ratio", 4);
  a.hca_compress_ratio = int_or(n, "hca_compress_ratio", 128);
  if (auto r = n.find("compress_ratios_used")) {
    for (const YamlNode& x : r->items()) positive_int(x);
  }
  a.sparse_topk = int_or(n, "sparse_topk", 0);
  a.indexer_heads = int_or(n, "indexer_heads", 0);
  a.indexer_head_dim = int_or(n, "indexer_head_dim", 0);
  a.indexer_layers = int_or(n, "indexer_layers", 0);
  a.kv_compression = n.number_or("kv_compression", 1.0);
  a.kda_layers = int_or(n, "kda_layers", 0);
  a.mla_layers = int_or(n, "mla_layers", 0);
  a.kda_conv_kernel = int_or(n, "kda_conv_kernel", 4);
  a.output_gate = n.has("output_gate");
  n.string_or("positional", "rope");
  n.number_or("partial_rotary", 1.0);

  const int L = m.layers;
  auto need = [&](std::string_view key) {
    if (n.integer_or(key, 0) <= 0) throw n.error(std::string(key) + " is required and must be > 0 for attention kind " + n.at("kind").as_string());
  };
  switch (a.kind) {
    case wl::AttentionKind::kGqa:
      need("head_dim");
      if (a.heads % a.kv_heads != 0) throw n.at("kv_heads").error("must divide heads");
      if (a.sliding_window_layers > L) throw n.at("sliding_window_layers").error("exceeds layers");
      if (a.sliding_window_layers > 0) need("sliding_window");
      break;
    case wl::AttentionKind::kMla:
      need("kv_lora_rank"), need("qk_nope_head_dim"), need("qk_rope_head_dim"), need("v_head_dim");
      if (a.sparse_topk > 0) {
        need("indexer_heads"), need("indexer_head_dim");
        const int shared = int_or(n, "indexer_shared_layers", 0);
        if (n.has("indexer_shared_layers") && a.indexer_layers + shared != L) {
          throw n.at("indexer_shared_layers").error("indexer_layers + indexer_shared_layers must equal layers");
        }
      }
      break;
    case wl::AttentionKind::kV4HybridCsaHca:
      need("head_dim"), need("q_lora_rank"), need("o_lora_rank"), need("o_groups");
      if (a.swa_only_layers + a.csa_layers + a.hca_layers != L) {
        throw n.error("swa_only_layers + csa_layers + hca_layers must equal layers");
      }
      break;
    case wl::AttentionKind::kV41Csa2:
      need("head_dim"), need("q_lora_rank"), need("o_lora_rank"), need("o_groups");
      break;
    case wl::AttentionKind::kHybridKdaMla:
      need("head_dim"), need("kv_lora_rank"), need("v_head_dim");
      if (a.kda_layers + a.mla_layers != L) throw n.error("kda_layers + mla_layers must equal layers");
      break;
  }
}

void decode_ffn(const YamlNode& n, wl::ModelSpec& m) {
  n.check_keys(kFfnKeys);
  wl::FfnSpec& f = m.ffn;
  f.experts = int_or(n, "experts", 0);
  f.dense_layers = int_or(n, "dense_layers", f.experts > 0 ? 0 : m.layers);
  f.dense_intermediate = int_or(n, "dense_intermediate", 0);
  f.top_k = int_or(n, "top_k", 0);
  f.shared_experts = int_or(n, "shared_experts", 0);
  f.expert_intermediate = int_or(n, "expert_intermediate", 0);
  f.shared_expert_intermediate = int_or(n, "shared_expert_intermediate", 0);
  f.latent_dim = int_or(n, "latent_dim", 0);
  f.expert_bias = bool_or(n, "expert_bias", false);
  f.hash_layers = int_or(n, "hash_layers", 0);
  const auto cv = [&n](const char* key) {
    const double v = n.number_or(key, 0.0);
    if (!(v >= 0 && v <= 10)) throw n.at(key).error(std::string(key) + " must be in [0, 10]");
    return v;
  };
  f.expert_load_cv = cv("expert_load_cv");
  f.expert_load_cv_balanced = cv("expert_load_cv_balanced");
  int_or(n, "n_group", 0);
  int_or(n, "topk_group", 0);
  n.string_or("scoring_func", "");
  n.string_or("router", "");
  n.string_or("activation", "swiglu");
  const bool any_dense = f.experts == 0 || f.dense_layers > 0;
  if (any_dense && f.dense_intermediate <= 0) throw n.error("dense_intermediate is required for dense layers");
  if (f.experts > 0) {
    if (f.top_k <= 0 || f.top_k > f.experts) throw n.error("top_k must be in [1, experts]");
    if (f.expert_intermediate <= 0) throw n.error("expert_intermediate is required for MoE layers");
    if (f.dense_layers > m.layers) throw n.at("dense_layers").error("exceeds layers");
  }
}

void check_equal(const YamlNode& n, double computed, const std::string& what) {
  const double catalog = n.as_number();
  if (std::abs(catalog - computed) > 0.5) {
    throw n.error("catalog says " + std::to_string(catalog) + " but the shape gives " + std::to_string(computed) +
                  " (" + what + ")");
  }
}

}  // namespace

wl::ModelSpec decode_model(const YamlNode& n) {
  n.check_keys(kModelKeys);
  wl::ModelSpec m;
  m.name = n.at("name").as_string();
  m.display_name = n.string_or("display_name", m.name);
  m.published_total_params = n.at("published_total_params").as_number();
  m.published_active_params = n.at("published_active_params").as_number();
  m.published_active_params_precise = n.number_or("published_active_params_precise", 0);
  m.published_total_params_with_mtp = n.number_or("published_total_params_with_mtp", 0);
  m.published_total_params_checkpoint = n.number_or("published_total_params_checkpoint", 0);
  m.layers = positive_int(n.at("layers"));
  int_or(n, "encoder_layers", 0);
  int_or(n, "decoder_layers", 0);
  m.hidden = positive_int(n.at("hidden"));
  m.vocab = positive_int(n.at("vocab"));
  m.tie_embeddings = bool_or(n, "tie_embeddings", false);
  m.max_context = positive_int(n.at("max_context"));
  m.mtp_modules = int_or(n, "mtp_modules", 0);
  m.mtp_draft_tokens = int_or(n, "mtp_draft_tokens", 0);
  m.min_devices = int_or(n, "min_gpus", 0);
  if (auto sp = n.find("speculative")) m.speculative = decode_drafter(*sp, true);
  decode_attention(n.at("attention"), m);
  decode_ffn(n.at("ffn"), m);
  if (auto h = n.find("mhc")) {
    h->check_keys(kMhcKeys);
    m.hc_mult = positive_int(h->at("hc_mult"));
    int_or(*h, "sinkhorn_iters", 0);
  }
  if (auto r = n.find("attn_res")) {
    r->check_keys(kAttnResKeys);
    m.attn_res_block = positive_int(r->at("block_size"));
  }
  const YamlNode prec = n.at("precision");
  prec.check_keys(kPrecisionKeys);
  // A weight group's block: the one its format names (nvfp4, mxfp4), else block_scale.
  const int block_scale = int_or(prec, "block_scale", 0);
  const auto weight_format = [&](const YamlNode& v) {
    const auto f = parse_weight_format(v.as_string());
    if (!f) throw v.error("unknown format '" + v.as_string() + "'; valid: " + kWeightFormatNames);
    return WeightFormat{f->dtype, f->block.value_or(block_scale)};
  };
  const WeightFormat weights = weight_format(prec.at("weights"));
  const WeightFormat experts = prec.has("experts") ? weight_format(prec.at("experts")) : weights;
  m.precision.weights = weights.dtype;
  m.precision.weights_block = weights.block;
  m.precision.experts = experts.dtype;
  m.precision.experts_block = experts.block;
  m.precision.kv_cache = decode_dtype(prec.at("kv_cache"));
  if (prec.has("activations")) m.precision.activations = decode_dtype(prec.at("activations"));
  if (auto p = n.find("phase_asymmetric")) {
    p->check_keys(kPhaseKeys);
    m.phase.prefill_layers = positive_int(p->at("prefill_layers"));
    if (m.phase.prefill_layers > m.layers) throw p->at("prefill_layers").error("exceeds layers");
    m.phase.published_prefill_active_params = p->number_or("prefill_active_params", 0);
    p->number_or("decode_active_params", 0);
  }
  if (auto e = n.find("engram")) {
    e->check_keys(kEngramKeys);
    m.engram.table_bytes = positive(e->at("table_bytes"), core::Dimension::kBytes);
    m.engram.table_bytes_with_scales = e->quantity_or("table_bytes_with_scales", core::Dimension::kBytes, m.engram.table_bytes);
    m.engram.rows_per_token = e->at("rows_per_token").as_number();
    m.engram.row_bytes = e->at("row_bytes").as_number();
    m.engram.scale_bytes_per_row = e->number_or("scale_bytes_per_row", 0);
    m.engram.published_params = n.number_or("published_engram_params", 0);
    int_or(*e, "rows_per_table", 0);
    if (auto l = e->find("layers")) {
      for (const YamlNode& x : l->items()) {
        const long long layer = x.as_integer();
        if (layer < 0 || layer >= m.layers) throw x.error("Engram layer must be in [0, layers)");
        if (!m.engram.layers.empty() && layer <= m.engram.layers.back()) throw x.error("Engram layers must ascend");
        m.engram.layers.push_back(static_cast<int>(layer));
      }
    }
    if (e->has("dtype")) decode_dtype(e->at("dtype"));
    const std::string place = e->string_or("placement_default", "gpu");
    if (place != "gpu" && place != "host") throw e->at("placement_default").error("must be gpu or host");
    m.engram.host_resident = place == "host";
  } else if (n.has("published_engram_params")) {
    throw n.at("published_engram_params").error("needs an engram section");
  }
  m.sync_mirrors();

  // KV figures: inputs first, then the catalog's hand values as cross-checks.
  if (auto kv = n.find("kv_cache")) {
    kv->check_keys(kKvKeys);
    m.kv_indexer_bytes_per_token = kv->number_or("indexer_bytes_per_token", 0);
    m.kv_global_bytes_per_token = kv->number_or("global_bytes_per_token", 0);
    kv->number_or("persistent_ratio_vs_v4_flash", 0);
    if (auto v = kv->find("bytes_per_token")) {
      const double indexer = m.kv_indexer_bytes_per_token;
      check_equal(*v, m.kv_bytes_per_token() - indexer, "growing KV bytes per token, indexer keys excluded");
    }
    if (auto v = kv->find("bytes_per_token_all_layers")) {
      const double w = m.attention.sliding_window;
      check_equal(*v, m.kv_bytes_for_context(w) / w, "KV bytes per token within the window");
    }
    wl::ModelSpec bf16 = m;
    bf16.precision.kv_cache = hw::DType::kBf16;
    if (auto v = kv->find("bytes_per_token_bf16")) check_equal(*v, bf16.kv_bytes_per_token(), "BF16 KV bytes per token");
    if (auto v = kv->find("window_bytes_per_seq_bf16")) {
      const double w = m.attention.sliding_window;
      check_equal(*v, bf16.kv_bytes_for_context(w) - w * bf16.kv_bytes_per_token(), "BF16 window rings per sequence");
    }
    if (auto v = kv->find("recurrent_state_bytes_per_seq")) {
      check_equal(*v, m.kv_bytes_for_context(0), "recurrent state per sequence");
    }
  }
  if (m.attention.kind == wl::AttentionKind::kV41Csa2 && m.kv_global_bytes_per_token <= 0) {
    throw n.error("attention kind v41_csa2 needs kv_cache.global_bytes_per_token (its per-layer KV map is not public)");
  }
  if (auto v = n.at("attention").find("kda_state_bytes_per_layer")) {
    const double dk = m.attention.head_dim;
    check_equal(*v, m.attention.heads * dk * dk * 4.0, "KDA FP32 state per layer");
  }
  return m;
}

SpeculativeSpec decode_drafter(const YamlNode& n, bool with_method) {
  static constexpr std::array kKeys = {
      OptionSpec{"draft", "integer", "acceptance length", "tokens drafted per step (k)"},
      OptionSpec{"acceptance", "list of numbers", "", "P(draft i accepted | drafts before it accepted), one per position"},
      OptionSpec{"draft_layers", "number", "1", "draft cost per draft token, in target-model layers"},
      OptionSpec{"method", "string", "", "drafter kind (informational): mtp, dspark, eagle, ..."},
  };
  n.check_keys(with_method ? std::span<const OptionSpec>(kKeys) : std::span<const OptionSpec>(kKeys).first(3));
  SpeculativeSpec s;
  if (with_method) s.method = n.at("method").as_string();
  const YamlNode acc = n.at("acceptance");
  const std::vector<YamlNode> items = acc.items();
  for (const YamlNode& x : items) {
    const double p = x.as_number();
    if (!(p >= 0 && p <= 1)) throw x.error("expected a probability in [0, 1]");
    s.acceptance.push_back(p);
  }
  const long long k = bounded_int(n, "draft", static_cast<long long>(items.size()), 1, 16);
  if (k != static_cast<long long>(items.size())) {
    throw acc.error("expected " + std::to_string(k) + " probabilities (one per draft position), found " +
                    std::to_string(items.size()));
  }
  s.draft_tokens = static_cast<int>(k);
  if (auto v = n.find("draft_layers")) {
    s.draft_layers = v->as_number();
    if (!(s.draft_layers >= 0 && s.draft_layers <= 64)) throw v->error("expected a number in [0, 64]");
  }
  return s;
}

}  // namespace agentsim::wl
