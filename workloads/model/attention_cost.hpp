#pragma once
// Work and KV traffic of one query token in one layer of a given attention
// variant, as a function of how many tokens precede it. MLA runs in its
// absorbed form for decode (scores against the cached latent) and in its
// expanded form for prefill.
#include <algorithm>
#include <vector>

#include "workloads/model/layer_stack.hpp"
#include "workloads/model/param_counts.hpp"

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

// attention_cost's formulas with the model's constants worked out once, for the step
// cost's per-sequence loops; attention_cost(m, a, ctx, phase) is PreparedAttention(m, a, phase).at(ctx).
class PreparedAttention {
 public:
  PreparedAttention(const ModelSpec& m, LayerAttention a, Phase phase);
  AttentionCost at(double ctx) const {
    AttentionCost c;
    c.kv_write_bytes = growth_;
    const double sparse_cap = sparse_topk_ > 0 ? sparse_topk_ : ctx;
    switch (a_) {
      case LayerAttention::kGqaFull:
      case LayerAttention::kGqaSliding:
        c.attended_tokens = a_ == LayerAttention::kGqaFull ? ctx : std::min(ctx, window_);
        c.core_flops = four_h_hd_ * c.attended_tokens;
        c.kv_read_bytes = c.attended_tokens * gqa_entry_;
        if (a_ == LayerAttention::kGqaSliding) c.kv_write_bytes = gqa_entry_;
        break;
      case LayerAttention::kMla:
      case LayerAttention::kGatedMla:
        c.attended_tokens = ctx;
        c.core_flops = mla_per_ * ctx;
        c.kv_read_bytes = ctx * mla_entry_;
        break;
      case LayerAttention::kMlaSparse:
      case LayerAttention::kMlaSparseSharedIndex:
        c.attended_tokens = std::min(ctx, sparse_cap);
        c.core_flops = mla_per_ * c.attended_tokens;
        c.kv_read_bytes = c.attended_tokens * mla_entry_;
        if (a_ == LayerAttention::kMlaSparse) {
          c.indexer_flops = two_ni_di_ * ctx;
          c.kv_read_bytes += ctx * indexer_entry_;
        }
        break;
      case LayerAttention::kV4Swa:
      case LayerAttention::kV4Csa:
      case LayerAttention::kV4Hca:
      case LayerAttention::kV41Csa2: {
        double compressed = 0;
        if (a_ == LayerAttention::kV4Csa || a_ == LayerAttention::kV41Csa2) {
          const double entries = ctx / csa_ratio_;
          compressed = std::min(entries, sparse_cap);
          c.indexer_flops = two_ni_di_ * entries;
          c.kv_read_bytes += entries * indexer_head_dim_ * kv_elem_;
        } else if (a_ == LayerAttention::kV4Hca) {
          compressed = ctx / hca_ratio_;
        }
        c.attended_tokens = compressed + std::min(ctx, window_);
        c.core_flops = four_h_hd_ * c.attended_tokens;
        c.kv_read_bytes += c.attended_tokens * v4_entry_;
        c.kv_write_bytes += v4_entry_;
        break;
      }
      case LayerAttention::kKda:
        c.core_flops = kda_core_;
        c.kv_read_bytes = kda_state_;
        c.kv_write_bytes = decode_ ? kda_state_ : 0.0;
        break;
    }
    return c;
  }
  // kv_growth_bytes_per_token(m, a) * end + kv_bounded_bytes(m, a, end).
  double whole_bytes(double end) const;

  // The cap at() applies to a decode's attended tokens (window or top-k), -1 if none.
  long long decode_cap() const;
  // Appends the contexts where at() changes slope (windows, top-k caps, the compressed
  // entries' cap): between two of them every component of at() is affine in the context.
  void append_kinks(std::vector<double>& out) const;
  // Adds at(ctx) over `n` decodes with contexts summing to `ctx_sum` (and min(ctx,
  // decode_cap()) to `capped_sum`) into `acc`, in closed form, and returns true when that
  // is exact, i.e. bit-identical to adding them one by one: every term and partial sum an
  // integer below 2^53. Returns false, `acc` untouched, otherwise.
  bool add_exact_sum(long long n, long long ctx_sum, long long capped_sum, AttentionCost& acc) const;
  // at(first) + at(first + 1) + ... over `n` contexts, added one by one from zero, into `out`, in
  // closed form when that is bit-identical: the contexts lie past every kink, on a piece whose
  // coefficients are multiples of 2^-16 at the finest, so every term and partial sum is a multiple
  // of that unit below 2^53 of them
  // (a speculative verify chunk's queries). Returns false, `out` untouched, otherwise.
  bool consecutive_sum(long long first, long long n, AttentionCost& out) const;

 private:
  LayerAttention a_;
  bool decode_;
  double growth_, sparse_topk_, window_, four_h_hd_, gqa_entry_, mla_per_, mla_entry_, two_ni_di_, indexer_entry_,
      csa_ratio_, hca_ratio_, indexer_head_dim_, kv_elem_, v4_entry_, kda_core_, kda_state_, window_entry_;
  // at() over decodes as coefficients of the context sums (ok: all integral).
  struct ClosedForm {
    bool ok = false, capped = false;  // capped: attended tokens are min(ctx, decode_cap())
    double core_per_token = 0, indexer_per_ctx = 0, read_per_token = 0, indexer_read_per_ctx = 0, write_per_seq = 0;
  };
  ClosedForm closed_form() const;
  ClosedForm closed_;
  // at() past its last kink, term = (a + b x ctx) x unit, for core, indexer, read and write.
  struct LastPiece {
    bool ok = false;
    long long from = 0;         // the first integer context on the piece
    long long max_ctx_sum = 0;  // a run's contexts may sum to this before a total could round
    long long a[4] = {0, 0, 0, 0}, b[4] = {0, 0, 0, 0};
    double unit[4] = {1, 1, 1, 1};  // a power of two, 2^-16 at the finest
  };
  LastPiece last_piece() const;
  LastPiece last_;
};

}  // namespace agentsim::wl
