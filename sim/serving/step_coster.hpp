#pragma once
// Prices engine steps of one (model, system, options): everything that does not
// depend on the batch (layer stack, op list, kernel counts, math formats,
// floors, host link) is worked out once, and totals() equals
// step_cost_totals(batch, model, system, opt) bit for bit without allocating.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "hwmodels/system.hpp"
#include "sim/serving/step_cost.hpp"
#include "workloads/attention_cost.hpp"
#include "workloads/layer_stack.hpp"
#include "workloads/model_spec.hpp"

namespace agentsim::serving {

class StepCoster {
 public:
  // `model` and `system` are referenced, not copied: they must outlive the coster.
  StepCoster(const wl::ModelSpec& model, const hw::System& system, StepCostOptions opt);

  // == step_cost_totals(batch, model, system, opt), bit for bit. Keeps no
  // scratch: safe from several threads at once when opt's kernels and
  // collectives are (both are const lookups).
  StepCost totals(const StepBatch& batch) const { return tables_.totals(batch, opt_); }
  const StepCostOptions& options() const { return opt_; }

  // One-off pricing without copying `opt` (what step_cost_totals runs).
  static StepCost totals_once(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                              const StepCostOptions& opt);

 private:
  // Operations of a layer kind or of the model, in batch_work's order.
  enum class Op { kAttnProj, kAttnCore, kIndexer, kRouter, kSharedExperts, kLatentProj, kRoutedExperts,
                  kDenseFfn, kEmbedding, kEngram, kLmHead };
  // Math formats an op can run in: weights, experts, activations, FP8 (indexer).
  enum Slot { kWeights, kExperts, kActivations, kFp8, kSlots };

  struct Kind {
    Kind(const wl::ModelSpec& m, const wl::LayerKind& k, double pp);
    wl::LayerAttention attention;
    bool moe, prefill;
    double n;  // layers on the device: count / pp
    double attention_params, indexer_params, dense_ffn_params, routed_expert_params, shared_expert_params,
        router_params, latent_proj_params;
    wl::PreparedAttention prefill_attention, decode_attention;
  };
  static constexpr std::size_t kMaxKinds = 64;

  // A round-robin slice of a batch's decodes and prefill chunks (what split() builds), no copies.
  struct View {
    const DecodeItem* dec = nullptr;
    std::size_t dec_start = 0, dec_stride = 1, dec_count = 0;
    const PrefillChunk* pre = nullptr;
    std::size_t pre_start = 0, pre_stride = 1, pre_count = 0;
    long long context(std::size_t i) const { return dec[dec_start + i * dec_stride].context_tokens; }
    const PrefillChunk& chunk(std::size_t i) const { return pre[pre_start + i * pre_stride]; }
    View part(int parts, int index) const;
  };

  struct Priced {
    double roof_s = 0, compute_s = 0, memory_s = 0, host_s = 0, alpha_s = 0, beta_s = 0;
    double engram_host_s = 0, engram_host_bytes = 0;  // Engram rows over the host link (host_s: KV loads)
    double layers = 0, layer_ops_s = 0, lm_head_s = 0;
    double flops = 0, weight_bytes = 0, kv_read_bytes = 0, kv_write_bytes = 0, host_read_bytes = 0;
    int allreduces = 0;          // sum of round(count x micro) over the all-reduce rows
    double allreduce_bytes = 0;  // largest all-reduce payload
  };

  // Everything prepared from (model, system, options); holds no pointer into the options.
  class Tables {
   public:
    Tables(const wl::ModelSpec& model, const hw::System& system, const StepCostOptions& opt);
    StepCost totals(const StepBatch& batch, const StepCostOptions& opt) const;

   private:
    // One micro-batch part through price(); `spec`: decodes verify k + 1 tokens;
    // `draft`: only the op times the drafting estimate needs (no collectives, no host KV).
    Priced price(const View& v, const StepCostOptions& opt, bool spec, bool draft, int micro) const;

    const wl::ModelSpec* model_;
    const hw::System* system_;
    wl::ParallelPlan plan_;
    std::vector<Kind> kinds_;
    std::array<std::uint8_t, kMaxKinds> name_order_{};  // kinds_ indices sorted by LayerKind::name()
    std::array<hw::DType, kSlots> math_{};
    std::array<double, kSlots> peak_{};     // FLOP/s of the math format; 0: none (peak_flops_for throws)
    double floor_s_ = 0, host_bw_Bps_ = 0, host_latency_s_ = 0;
    double host_kv_bytes_ = 0;              // per device for opt.host_kv_load_tokens
    double h_ = 0, ab_ = 0, wb_ = 0, eb_ = 0;
    double kv_split_ = 1;
  };

  StepCostOptions opt_;
  Tables tables_;
};

}  // namespace agentsim::serving
