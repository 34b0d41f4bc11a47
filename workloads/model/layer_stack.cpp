#include "workloads/model/layer_stack.hpp"

#include <algorithm>

namespace agentsim::wl {

namespace {

double gqa_params(const ModelSpec& m) {
  const AttentionSpec& a = m.attention;
  const double h = m.hidden;
  const double qkv = static_cast<double>(a.heads + 2 * a.kv_heads) * a.head_dim;
  double p = h * qkv + static_cast<double>(a.heads) * a.head_dim * h;
  if (a.qkv_bias) p += qkv;
  if (a.o_bias) p += h;
  if (a.qk_norm) p += 2.0 * a.head_dim;
  if (a.attention_sinks) p += a.heads;
  return p;
}

double mla_params(const ModelSpec& m) {
  const AttentionSpec& a = m.attention;
  const double h = m.hidden, H = a.heads, qr = a.q_lora_rank, kvr = a.kv_lora_rank;
  const double nope = a.qk_nope_head_dim, rope = a.qk_rope_head_dim, v = a.v_head_dim;
  double p = qr > 0 ? h * qr + qr + qr * H * (nope + rope) : h * H * (nope + rope);  // q_a, norm, q_b
  p += h * (kvr + rope) + kvr;  // kv_a (latent + shared rope key), kv_a norm
  p += kvr * H * (nope + v);    // kv_b
  p += H * v * h;               // o_proj
  return p;
}

double dsa_indexer_params(const ModelSpec& m) {
  const AttentionSpec& a = m.attention;
  const double h = m.hidden, nI = a.indexer_heads, dI = a.indexer_head_dim;
  return a.q_lora_rank * nI * dI + h * dI + 2.0 * dI + h * nI;  // wq_b, wk, k_norm, weights_proj
}

// V4 KV compressor: the ratio-4 one pools overlapping windows (twice as wide).
double v4_compressor_params(double h, double d, int ratio) {
  const double coff = ratio == 4 ? 2.0 : 1.0;
  return 2.0 * h * coff * d + ratio * coff * d + d;  // wkv, wgate, position bias, norm
}

double v4_params(const ModelSpec& m, LayerAttention kind) {
  const AttentionSpec& a = m.attention;
  const double h = m.hidden, H = a.heads, hd = a.head_dim, qr = a.q_lora_rank;
  double p = h * qr + qr + qr * H * hd;                            // wq_a, q norm, wq_b
  p += h * hd + hd;                                                // single shared KV, norm
  p += H * hd * a.o_lora_rank + a.o_groups * double(a.o_lora_rank) * h;  // grouped low-rank output
  p += H;                                                          // sinks
  if (kind == LayerAttention::kV4Csa || kind == LayerAttention::kV41Csa2) {
    p += v4_compressor_params(h, hd, a.csa_compress_ratio);
    p += qr * a.indexer_heads * double(a.indexer_head_dim) + h * a.indexer_heads +
         v4_compressor_params(h, a.indexer_head_dim, 4);
  } else if (kind == LayerAttention::kV4Hca) {
    p += v4_compressor_params(h, hd, a.hca_compress_ratio);
  }
  return p;
}

double kda_params(const ModelSpec& m) {
  const AttentionSpec& a = m.attention;
  const double h = m.hidden, H = a.heads, dk = a.head_dim;
  double p = 3.0 * h * H * dk;               // q, k, v
  p += 3.0 * H * dk * a.kda_conv_kernel;     // short convolutions
  p += h * dk + dk * H * dk;                 // low-rank decay
  p += h * H + H + H * dk;                   // beta, A_log, dt_bias
  p += h * H * dk + dk + H * dk * h;         // output gate, o_norm, o_proj
  return p;
}

double mhc_params(const ModelSpec& m) {
  const double hm = m.hc_mult;
  if (hm == 0) return 0;
  // Per sub-block (attention, FFN): (2+hm)*hm*h mixing weights, (2+hm)*hm bias, 3 scales.
  return 2.0 * ((2 + hm) * hm * m.hidden + (2 + hm) * hm + 3);
}

double swiglu(double h, double inter) { return 3.0 * h * inter; }

}  // namespace

std::string_view to_string(LayerAttention a) {
  switch (a) {
    case LayerAttention::kGqaFull: return "gqa";
    case LayerAttention::kGqaSliding: return "gqa-sliding";
    case LayerAttention::kMla: return "mla";
    case LayerAttention::kMlaSparse: return "mla-sparse";
    case LayerAttention::kMlaSparseSharedIndex: return "mla-sparse-shared-index";
    case LayerAttention::kV4Swa: return "v4-swa";
    case LayerAttention::kV4Csa: return "v4-csa";
    case LayerAttention::kV4Hca: return "v4-hca";
    case LayerAttention::kV41Csa2: return "v4.1-csa2";
    case LayerAttention::kKda: return "kda";
    case LayerAttention::kGatedMla: return "gated-mla";
  }
  return "?";
}

std::string LayerKind::name() const {
  std::string s = std::string(to_string(attention)) + (moe ? "/moe" : "/dense");
  if (!prefill) s += " (decode only)";
  return s;
}

double LayerKind::active_params(int top_k) const {
  return attention_params + indexer_params + dense_ffn_params + top_k * routed_expert_params +
         shared_expert_params + router_params + latent_proj_params + norm_params;
}

double LayerKind::total_params(int experts) const {
  return active_params(experts);
}

std::vector<LayerKind> layer_stack(const ModelSpec& m) {
  const AttentionSpec& a = m.attention;
  const FfnSpec& f = m.ffn;
  const int L = m.layers;
  // Attention variant of each layer, by position. Order only matters where it
  // meets the dense-first layers; the catalog's known placements are followed
  // (GLM-5.2 indexers start at layer 0, Kimi K3's layer 0 is KDA, V4 starts with SWA).
  std::vector<LayerAttention> att(static_cast<size_t>(L), LayerAttention::kGqaFull);
  auto fill = [&](size_t& pos, int n, LayerAttention k) {
    for (int i = 0; i < n && pos < att.size(); ++i) att[pos++] = k;
  };
  size_t pos = 0;
  switch (a.kind) {
    case AttentionKind::kGqa:
      fill(pos, L - a.sliding_window_layers, LayerAttention::kGqaFull);
      fill(pos, a.sliding_window_layers, LayerAttention::kGqaSliding);
      break;
    case AttentionKind::kMla:
      if (a.sparse_topk > 0) {
        const int owners = a.indexer_layers > 0 ? a.indexer_layers : L;
        fill(pos, owners, LayerAttention::kMlaSparse);
        fill(pos, L - owners, LayerAttention::kMlaSparseSharedIndex);
      } else {
        fill(pos, L, LayerAttention::kMla);
      }
      break;
    case AttentionKind::kV4HybridCsaHca:
      fill(pos, a.swa_only_layers, LayerAttention::kV4Swa);
      fill(pos, a.csa_layers, LayerAttention::kV4Csa);
      fill(pos, a.hca_layers, LayerAttention::kV4Hca);
      break;
    case AttentionKind::kV41Csa2:
      fill(pos, L, LayerAttention::kV41Csa2);
      break;
    case AttentionKind::kHybridKdaMla:
      fill(pos, a.kda_layers, LayerAttention::kKda);
      fill(pos, a.mla_layers, LayerAttention::kGatedMla);
      break;
  }

  const double h = m.hidden;
  const double eh = f.latent_dim > 0 ? f.latent_dim : h;
  const double sei = f.shared_expert_intermediate > 0 ? f.shared_expert_intermediate : f.expert_intermediate;
  double routed_one = swiglu(eh, f.expert_intermediate);
  if (f.expert_bias) routed_one += 2.0 * f.expert_intermediate + eh;
  const double norms = 2.0 * h + mhc_params(m) + (m.attn_res_block > 0 ? 4.0 * h : 0.0);
  const int prefill_layers = m.phase.prefill_layers > 0 ? m.phase.prefill_layers : L;

  // Few kinds (a handful at most): a linear search per layer beats a map, and
  // the step cost prepares a stack per engine configuration.
  std::vector<LayerKind> kinds;
  for (int i = 0; i < L; ++i) {
    const LayerAttention attention = att[static_cast<size_t>(i)];
    const bool moe = f.experts > 0 && i >= f.dense_layers;
    const bool prefill = i < prefill_layers;
    const auto same = std::find_if(kinds.begin(), kinds.end(), [&](const LayerKind& x) {
      return x.attention == attention && x.moe == moe && x.prefill == prefill;
    });
    if (same != kinds.end()) {
      ++same->count;
      continue;
    }
    LayerKind k;
    k.attention = attention;
    k.moe = moe;
    k.prefill = prefill;
    k.count = 1;
    switch (k.attention) {
      case LayerAttention::kGqaFull:
      case LayerAttention::kGqaSliding: k.attention_params = gqa_params(m); break;
      case LayerAttention::kMla:
      case LayerAttention::kMlaSparseSharedIndex: k.attention_params = mla_params(m); break;
      case LayerAttention::kMlaSparse:
        k.attention_params = mla_params(m);
        k.indexer_params = dsa_indexer_params(m);
        break;
      case LayerAttention::kV4Swa:
      case LayerAttention::kV4Csa:
      case LayerAttention::kV4Hca:
      case LayerAttention::kV41Csa2: k.attention_params = v4_params(m, k.attention); break;
      case LayerAttention::kKda: k.attention_params = kda_params(m); break;
      case LayerAttention::kGatedMla: k.attention_params = mla_params(m) + h * a.heads * a.v_head_dim; break;
    }
    if (k.moe) {
      k.routed_expert_params = routed_one;
      k.shared_expert_params = f.shared_experts * swiglu(h, sei);
      k.router_params = static_cast<double>(f.experts) * h + f.experts;  // weight + score bias
      k.latent_proj_params = f.latent_dim > 0 ? 2.0 * h * eh + eh : 0.0;
    } else {
      k.dense_ffn_params = swiglu(h, f.dense_intermediate);
    }
    k.norm_params = norms;
    kinds.push_back(k);
  }
  return kinds;
}

}  // namespace agentsim::wl
