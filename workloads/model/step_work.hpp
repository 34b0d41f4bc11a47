#pragma once
// The work one engine step puts on one device under a parallel plan, op by op:
// prepared once per (model, plan) (layer stack, bytes per element, prepared
// attention), then visited per batch without allocating. The step cost prices
// what it visits (sim/serving/step_coster); batch_work() records it.
// Per-device values are for the average pipeline stage (layers split over pp)
// with sequences spread evenly over the attention-DP groups.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "hwmodels/dtype.hpp"
#include "workloads/model/attention_cost.hpp"
#include "workloads/model/batch_work.hpp"
#include "workloads/model/model_spec.hpp"
#include "workloads/model/moe_expectation.hpp"
#include "workloads/model/op.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::wl {

// The format an op's math is written in: weights, experts, activations, FP8 (indexer).
enum class Format : std::uint8_t { kWeights, kExperts, kActivations, kFp8 };
inline constexpr std::size_t kFormats = 4;

// Bytes per hidden element of a token dispatched to its experts: FP8 with a 4-byte scale per 128
// elements where the routed experts compute in FP8 (quantized before the all-to-all, DeepEP's and
// MORI-EP's "FP8 dispatching and BF16 combining"), else the activation dtype's. The combine
// returns the experts' outputs in the activation dtype.
double dispatch_bytes_per_element(const PrecisionSpec& p);

// Token counts of one step's batch.
struct StepTokens {
  std::size_t prefill_chunks = 0;  // prompt chunks and verified output chunks
  double prefill_tokens = 0;       // over all chunks
  double output_chunk_tokens = 0;  // over the verified output chunks (they run the decode-only layers too)
  double decode_tokens = 0;        // one per decoding sequence
  double all_tokens = 0;           // prefill + decode
  double sampled = 0;              // LM head positions: completing chunks + decodes
  double context_sum = 0;          // over the decodes
};

// What one op reads, writes and computes on one device (all its layers).
struct OpAmounts {
  double flops = 0, weight_read = 0, kv_read = 0, kv_write = 0, act_read = 0, act_write = 0, host_read = 0;
  double experts = 0;  // routed experts: expert weight slices the priced (busiest) device reads per layer
};

class StepWork {
 public:
  static constexpr std::size_t kMaxKinds = 64;
  static constexpr std::size_t kModel = kMaxKinds;  // the "kind" of once-per-step ops and of the stage boundary

  StepWork(const ModelSpec& m, const ParallelPlan& plan);

  // Visits `batch` in batch order: sink.begin(StepTokens), then per layer kind
  // sink.op(kind, Op, layers, Format, OpAmounts) and
  // sink.collective(kind, CollectiveOp, where, group, count, payload bytes),
  // then the once-per-step ops (kind kModel). `Batch` gives prefill_count(),
  // chunk(i) -> PrefillShape, decode_count() and context(i) -> tokens.
  // Returns the kinds that ran, one bit each.
  template <class Batch, class Sink>
  std::uint64_t visit(const Batch& batch, Sink& sink) const;

  // Layers on the device of the kinds in `present`, summed in kind-name order.
  double layers(std::uint64_t present) const;
  const std::string& kind_name(std::size_t kind) const;  // LayerKind::name(), "model" for kModel
  // Layer kind `kind` attends with dense MLA (LayerAttention::kMla); false for kModel.
  bool dense_mla(std::size_t kind) const { return kind < kinds_.size() && kinds_[kind].attention == LayerAttention::kMla; }
  // Layer kind `kind` routes to experts; false for kModel.
  bool moe(std::size_t kind) const { return kind < kinds_.size() && kinds_[kind].moe; }
  hw::DType dtype(Format f) const { return dtype_[static_cast<std::size_t>(f)]; }
  // Stored bytes per routed-expert weight, block scales included (weight_format.hpp).
  double expert_bytes_per_weight() const { return eb_; }
  const ModelSpec& model() const { return *model_; }
  // Decode contexts where some kind's decode attention changes slope (PreparedAttention::
  // append_kinks): a decode batch's work is affine in a shift of every context that crosses none.
  const std::vector<double>& decode_kinks() const { return decode_kinks_; }
  const ParallelPlan& plan() const { return plan_; }

 private:
  struct Kind {
    Kind(const ModelSpec& m, const LayerKind& k, double pp);
    LayerAttention attention;
    bool moe, prefill;
    double n;  // layers on the device: count / pp
    double attention_params, indexer_params, dense_ffn_params, routed_expert_params, shared_expert_params,
        router_params, latent_proj_params;
    PreparedAttention prefill_attention, decode_attention;
    int cap_slot = -1;       // index of decode_attention's cap in caps_, -1: uncapped
    bool sum_exact = true;   // decodes may be summed in closed form (false: its cap has no slot)
    int save_slot = -1;      // a later kind has this kind's attention and phase: keep its cost here
    int load_slot = -1;      // an earlier kind's attention cost is this kind's: take it from here
    std::string name;
  };
  static constexpr std::size_t kMaxCaps = 4;
  static constexpr std::size_t kMaxSharedAttention = 4;  // beyond: recomputed (the same values)

  template <class Sink>
  void model_ops(const StepTokens& t, Sink& sink) const;

  const ModelSpec* model_;
  ParallelPlan plan_;
  std::vector<Kind> kinds_;
  std::array<std::uint8_t, kMaxKinds> name_order_{};  // kinds_ indices sorted by name
  std::array<hw::DType, kFormats> dtype_{};
  std::array<long long, kMaxCaps> caps_{};  // distinct decode caps (windows, top-k) over the kinds
  std::size_t n_caps_ = 0;
  std::vector<double> decode_kinks_;  // ascending, distinct
  // Routed-expert work of a step of `tokens` tokens: the experts it touches (the mean rank
  // reads touched / ranks of them) and the busiest expert-parallel rank's share over the
  // mean rank's, for its expert weights and for its routed tokens (1 without EP).
  struct RoutedLoad {
    double touched = 0, weight_factor = 1, token_factor = 1;
  };
  RoutedLoad routed_load(double tokens) const;
  std::array<RoutedLoad, 512> routed_{};  // routed_load for 0..511 tokens (MoE)
  double h_ = 0, ab_ = 0, wb_ = 0, eb_ = 0, kv_split_ = 1;
  double dispatch_bytes_ = 0;  // per element of a token sent to its experts (dispatch_bytes_per_element)
};

template <class Batch, class Sink>
std::uint64_t StepWork::visit(const Batch& batch, Sink& sink) const {
  const ModelSpec& m = *model_;
  StepTokens t;
  t.prefill_chunks = batch.prefill_count();
  const std::size_t n_decode = batch.decode_count();
  for (std::size_t i = 0; i < t.prefill_chunks; ++i) {
    const PrefillShape c = batch.chunk(i);
    t.prefill_tokens += c.new_tokens;
    if (c.output) t.output_chunk_tokens += c.new_tokens;
    if (c.samples) t.sampled += 1;
  }
  t.decode_tokens = static_cast<double>(n_decode);
  t.sampled += t.decode_tokens;
  // Integer contexts are also summed as integers (exact): in all, and capped at each
  // kind's cap, for the attention's closed-form sums.
  constexpr bool integer_contexts = std::is_integral_v<decltype(batch.context(0))>;
  long long ctx_sum = 0;
  std::array<long long, kMaxCaps> capped{};
  if constexpr (integer_contexts) {
    for (std::size_t i = 0; i < n_decode; ++i) {
      const long long c = batch.context(i);
      ctx_sum += c;
      for (std::size_t j = 0; j < n_caps_; ++j) capped[j] += std::min(c, caps_[j]);
    }
  }
  if (integer_contexts && ctx_sum < (1LL << 53)) {
    t.context_sum = static_cast<double>(ctx_sum);  // what adding them one by one gives
  } else {
    for (std::size_t i = 0; i < n_decode; ++i) t.context_sum += static_cast<double>(batch.context(i));
  }
  t.all_tokens = t.prefill_tokens + t.decode_tokens;
  sink.begin(t);
  std::uint64_t present = 0;
  if (t.all_tokens <= 0) return present;

  const double h = h_, ab = ab_, wb = wb_, eb = eb_;
  const double tp = plan_.tp, dp = plan_.attn_dp, stage = plan_.devices_per_stage();
  // Kinds sharing an attention variant and phase see the same attention work: computed
  // once, kept in the slot the first of them saves to.
  std::array<AttentionCost, kMaxSharedAttention> shared;

  for (std::size_t ki = 0; ki < kinds_.size(); ++ki) {
    const Kind& k = kinds_[ki];
    const double n = k.n;
    // Layers prompt tokens skip (phase_asymmetric) still run verified output tokens.
    const double tokens = (k.prefill ? t.prefill_tokens : t.output_chunk_tokens) + t.decode_tokens;
    if (tokens <= 0) continue;
    present |= std::uint64_t{1} << ki;
    const double dev_tokens = tokens / dp;  // tokens one attention-DP group handles
    auto op = [&](Op id, Format f, const OpAmounts& a) { sink.op(ki, id, n, f, a); };
    auto matmul = [&](Op id, double params, double bytes_per_weight, double split) {
      op(id, Format::kWeights,
         {n * 2.0 * params * dev_tokens / split, n * params * bytes_per_weight / split, 0, 0, n * dev_tokens * h * ab,
          n * dev_tokens * h * ab, 0});
    };

    matmul(Op::kAttnProj, k.attention_params, wb, tp);

    AttentionCost att;
    if (k.load_slot >= 0) {
      att = shared[static_cast<std::size_t>(k.load_slot)];
    } else {
      auto add = [&att](const AttentionCost& x) {
        att.core_flops += x.core_flops;
        att.indexer_flops += x.indexer_flops;
        att.kv_read_bytes += x.kv_read_bytes;
        att.kv_write_bytes += x.kv_write_bytes;
      };
      for (std::size_t i = 0; i < t.prefill_chunks; ++i) {
        const PrefillShape c = batch.chunk(i);
        if (!k.prefill && !c.output) continue;
        add(chunk_attention(k.prefill_attention, c));
      }
      const long long capped_sum = k.cap_slot >= 0 ? capped[static_cast<std::size_t>(k.cap_slot)] : ctx_sum;
      if (n_decode > 0 && !(integer_contexts && k.sum_exact &&
          k.decode_attention.add_exact_sum(static_cast<long long>(n_decode), ctx_sum, capped_sum, att))) {
        for (std::size_t i = 0; i < n_decode; ++i) add(k.decode_attention.at(static_cast<double>(batch.context(i))));
      }
      if (k.save_slot >= 0) shared[static_cast<std::size_t>(k.save_slot)] = att;
    }
    op(Op::kAttnCore, Format::kActivations,
       {n * att.core_flops / (dp * tp), 0, n * att.kv_read_bytes / (dp * kv_split_),
        n * att.kv_write_bytes / (dp * kv_split_), 0, 0, 0});
    if (att.indexer_flops > 0) {
      double flops = n * att.indexer_flops / dp;
      const double weight = n * k.indexer_params * wb;
      flops += n * 2.0 * k.indexer_params * dev_tokens;
      op(Op::kIndexer, Format::kFp8, {flops, weight, 0, 0, 0, 0, 0});
    }

    RoutedLoad r;
    if (k.moe) {
      const FfnSpec& f = m.ffn;
      op(Op::kRouter, Format::kActivations,
         {n * 2.0 * k.router_params * dev_tokens, n * k.router_params * ab, 0, 0, 0, 0, 0});
      if (k.shared_expert_params > 0) matmul(Op::kSharedExperts, k.shared_expert_params, wb, tp);
      if (k.latent_proj_params > 0) matmul(Op::kLatentProj, k.latent_proj_params, wb, tp);
      const bool tabled = tokens < static_cast<double>(routed_.size()) &&
                          tokens == static_cast<double>(static_cast<std::size_t>(tokens));
      r = tabled ? routed_[static_cast<std::size_t>(tokens)] : routed_load(tokens);
      // The busiest expert-parallel rank's share: the step waits for it.
      const double e_flops = n * 2.0 * k.routed_expert_params * f.top_k * tokens / stage * r.token_factor;
      const double e_weight = n * r.touched * k.routed_expert_params * eb / stage * r.weight_factor;
      const double e_act = n * tokens * f.top_k * h * ab / stage * r.token_factor;
      op(Op::kRoutedExperts, Format::kExperts,
         {e_flops, e_weight, 0, 0, e_act, e_act, 0, r.touched / plan_.ep * r.weight_factor});
    } else {
      matmul(Op::kDenseFfn, k.dense_ffn_params, wb, tp);
    }
    {
      // The memory-bound kernels between the GEMMs, each token's activations read and written at
      // the activation format: per sub-block (attention, FFN) the residual-add RMSNorm (reads the
      // sub-block's output and the residual streams, writes the streams and the normed input:
      // (1 + streams) x h each way; one stream without mHC), and the SwiGLU of the dense or shared
      // FFN slice (reads gate and up, writes their product). A fused MoE call's activation is in
      // its measured time (routed experts).
      const double streams = m.hc_mult > 0 ? m.hc_mult : 1;
      const double ffn = (k.moe ? k.shared_expert_params : k.dense_ffn_params) / (3.0 * h * tp);
      const double rd = n * dev_tokens * (2.0 * (1.0 + streams) * h + 2.0 * ffn) * ab;
      const double wr = n * dev_tokens * (2.0 * (1.0 + streams) * h + ffn) * ab;
      op(Op::kNormAct, Format::kActivations, {0, 0, 0, 0, rd, wr, 0});
    }

    if (tp > 1) {
      sink.collective(ki, CollectiveOp::kAllReduce, " attention output", plan_.tp, n, dev_tokens * h * ab);
      sink.collective(ki, CollectiveOp::kAllReduce, " FFN output", plan_.tp, n, dev_tokens * h * ab);
    }
    // Tokens reach their experts' ranks by an all-to-all only where attention is data parallel
    // (each group holds its own sequences). Under attention TP alone every rank already holds
    // every token: it runs its own experts on them and the FFN-output all-reduce sums the
    // partial outputs (the engines' all-to-all backends need attention DP: docs/deployments.md).
    if (k.moe && plan_.ep > 1 && plan_.attn_dp > 1) {
      if (plan_.expert_all_to_all) {
        const double routed = tokens / stage * m.ffn.top_k * h * r.token_factor;
        sink.collective(ki, CollectiveOp::kDispatch, " experts", plan_.ep, n, routed * dispatch_bytes_);
        sink.collective(ki, CollectiveOp::kCombine, " experts", plan_.ep, n, routed * ab);
      } else {
        // Every rank gathers all the step's tokens (its buffer: tokens x hidden in the
        // activation dtype) and reduce-scatters its experts' partial outputs over the same buffer.
        sink.collective(ki, CollectiveOp::kAllGather, " experts", plan_.ep, n, tokens * h * ab);
        sink.collective(ki, CollectiveOp::kReduceScatter, " experts", plan_.ep, n, tokens * h * ab);
      }
    }
  }

  model_ops(t, sink);
  return present;
}

// Once per step (averaged over stages: the first stage embeds, the last samples).
template <class Sink>
void StepWork::model_ops(const StepTokens& t, Sink& sink) const {
  const ModelSpec& m = *model_;
  const double h = h_, ab = ab_;
  const double tp = plan_.tp, dp = plan_.attn_dp, pp = plan_.pp;
  const double all = t.all_tokens, sampled = t.sampled;
  {
    const double weight = all / dp * h * ab / pp;
    sink.op(kModel, Op::kEmbedding, 0, Format::kActivations, {0, weight, 0, 0, 0, weight, 0});
  }
  if (m.engram.table_bytes > 0) {
    const double bytes = all / dp * m.engram.rows_per_token * (m.engram.row_bytes + m.engram.scale_bytes_per_row) / pp;
    OpAmounts a;
    (plan_.engram_on_host ? a.host_read : a.weight_read) = bytes;
    sink.op(kModel, Op::kEngram, 0, Format::kActivations, a);
  }
  {
    const double head = static_cast<double>(m.vocab) * h;
    sink.op(kModel, Op::kLmHead, 0, Format::kActivations,
            {2.0 * head * sampled / (dp * tp * pp), head * ab / (tp * pp), 0, 0, 0,
             sampled / dp * m.vocab * 4.0 / (tp * pp), 0});  // FP32 logits
  }
  if (pp > 1) {
    const double streams = m.hc_mult > 0 ? m.hc_mult : 1;
    sink.collective(kModel, CollectiveOp::kSendRecv, "pipeline stage boundary", 2, (pp - 1) / pp,
                    all / dp * streams * h * ab);
  }
}

}  // namespace agentsim::wl
