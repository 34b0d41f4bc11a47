#pragma once
// The step-cost engine: prices engine steps of one (model, system, options).
// Everything that does not depend on the batch (the model's step work, math
// formats and peaks, launch floors, host link) is prepared once; price() then
// visits the batch's ops and collectives (wl::StepWork) and prices each op on
// the roofline (hw::op_time) with the options' efficiency lookup. Rows, notes
// and causes by op are filled only when a breakdown is asked for; without one
// it allocates nothing (the hot path). step_cost() is a one-off of it.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "hwmodels/system.hpp"
#include "sim/serving/comm_exposure.hpp"
#include "sim/serving/kernel_efficiency.hpp"
#include "sim/serving/price_memo.hpp"
#include "sim/serving/step_cost.hpp"
#include "workloads/model/model_spec.hpp"
#include "workloads/model/step_work.hpp"

namespace agentsim::serving {

// What decides whether a decode-only step's cost is affine in a shift of its contexts, as
// price_shifted() saw it (DecodeSegment's fast path, StepCoster::affine_between).
struct AffineProbe {
  // Decode-only, no overlap, speculation, host KV loads or host Engram rows: the step is
  // max(compute, memory) + constant collectives + the ops' excess over that max + host time.
  bool eligible = false;
  bool compute_bound = false;  // the step's: StepCost::compute_bound
  // The engine's overlappable host work fits within the step's device time (EngineOverhead::
  // exposed_s): hidden at both ends of an affine stretch of device time, hidden throughout.
  // True without the overlap scheduler (all of it exposed at every step: the cost has no kink there).
  bool host_hidden = true;
  struct Op {
    wl::Op id;
    Cause bound;  // its largest term (compute, HBM or launch floor), as the breakdown books it
    KernelShape shape;
  };
  std::vector<Op> ops;  // the ops that read the contexts (wl::OpInfo::reads_contexts), in visit order
};

class StepCoster {
 public:
  // `model` and `system` are referenced, not copied: they must outlive the coster.
  StepCoster(const wl::ModelSpec& model, const hw::System& system, StepCostOptions opt);

  // The step's cost; `breakdown`: with its op and collective rows, notes and
  // causes by op (the totals do not change). Keeps no scratch: safe from
  // several threads at once when opt's kernels and collectives are (both are
  // const lookups).
  StepCost price(const StepBatch& batch, bool breakdown = false) const {
    return tables_.price(batch, opt_, breakdown, 0, nullptr);
  }
  // The same totals, reusing the prices `memo` kept of ops and collectives whose inputs
  // repeat (the caller's scratch: one memo per thread).
  StepCost price(const StepBatch& batch, PriceMemo& memo) const { return tables_.price(batch, opt_, false, 0, &memo); }
  // price(batch) with every decode's context `context_shift` tokens longer, without a copy.
  StepCost price_shifted(const StepBatch& batch, long long context_shift, PriceMemo* memo = nullptr,
                         AffineProbe* probe = nullptr) const {
    return tables_.price(batch, opt_, false, context_shift, memo, probe);
  }
  // True when price_shifted(batch, i) is affine in i on [lo, hi] (to rounding), given the probes
  // of its prices at lo and hi: both eligible, every op that reads the contexts and the step
  // bound by the same term at both ends (a term at least the others at both ends is so throughout),
  // the engine's overlappable host work hidden at both ends or at neither,
  // their efficiencies constant between (KernelEfficiency::constant_between) and no context
  // crossing a kink of the attention's work.
  bool affine_between(const StepBatch& batch, long long lo, long long hi, const AffineProbe& a,
                      const AffineProbe& b) const;
  const StepCostOptions& options() const { return opt_; }

  // One-off pricing without copying `opt` (what step_cost runs).
  static StepCost price_once(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                             const StepCostOptions& opt, bool breakdown);

 private:
  // A round-robin slice of a batch's decodes and prefill chunks (a pipeline
  // micro-batch or a two-batch-overlap half), no copies.
  struct View {
    const DecodeItem* dec = nullptr;
    std::size_t dec_start = 0, dec_stride = 1, dec_count = 0;
    long long shift = 0;  // added to every decode's context
    const PrefillChunk* pre = nullptr;
    std::size_t pre_start = 0, pre_stride = 1, pre_count = 0;
    long long context(std::size_t i) const { return dec[dec_start + i * dec_stride].context_tokens + shift; }
    const PrefillChunk& chunk(std::size_t i) const { return pre[pre_start + i * pre_stride]; }
    View part(int parts, int index) const;
  };

  // One part priced.
  struct Priced {
    double roof_s = 0, compute_s = 0, memory_s = 0, host_s = 0, alpha_s = 0, beta_s = 0;
    double engram_host_s = 0, engram_host_bytes = 0;  // Engram rows over the host link (host_s: KV loads)
    double layers = 0, layer_ops_s = 0, lm_head_s = 0;
    double flops = 0, weight_bytes = 0, kv_read_bytes = 0, kv_write_bytes = 0, host_read_bytes = 0;
    int allreduces = 0;          // sum of round(count x micro) over the all-reduce rows
    double allreduce_bytes = 0;  // largest all-reduce payload
    TwoBatchSide stages;         // MoE layers' op times by overlap stage, expert all-to-alls
  };
  class Pricer;  // prices what StepWork visits (step_coster.cpp)

  // Everything prepared from (model, system, options); holds no pointer into the options.
  class Tables {
   public:
    Tables(const wl::ModelSpec& model, const hw::System& system, const StepCostOptions& opt);
    StepCost price(const StepBatch& batch, const StepCostOptions& opt, bool breakdown, long long shift,
                   PriceMemo* memo, AffineProbe* probe = nullptr) const;
    const wl::StepWork& work() const { return work_; }

   private:
    friend class Pricer;
    // One part; `spec`: decodes verify k + 1 tokens; `draft`: only the op times
    // the drafting estimate needs (no collectives, no host KV); `floor_s`: launch
    // floor per kernel; `rows`: the breakdown to append op and collective rows to, or null;
    // `memo`: prices kept from earlier steps, or null (always null with rows).
    Priced price(const View& v, const StepCostOptions& opt, bool spec, bool draft, int micro, double floor_s,
                 StepBreakdown* rows, PriceMemo* memo, AffineProbe* probe = nullptr) const;
    static void finish_breakdown(StepBreakdown& bd, const StepCostOptions& opt, int micro, bool drafted);

    wl::StepWork work_;
    const hw::System* system_;
    bool ep_spans_systems_ = false;  // the plan's expert-parallel group crosses the scale-out NICs
    std::array<hw::DType, wl::kFormats> math_{};     // the format the math runs in (a wider one without a peak)
    std::array<double, wl::kFormats> peak_{};        // FLOP/s of the math format; 0: none (peak_flops_for throws)
    std::array<std::string, wl::kFormats> math_note_{};  // the fallback, for the breakdown; empty if none
    // Launch floor per kernel: eager, and replayed from a graph (eager unless opt.cuda_graph).
    double eager_floor_s_ = 0, graph_floor_s_ = 0;
    std::string eager_floor_note_, graph_floor_note_;  // the table (or catalog key) behind each floor
    double host_bw_Bps_ = 0, host_latency_s_ = 0;
    double host_kv_bytes_ = 0;  // per device for opt.host_kv_load_tokens
    // Distinct for every constructed Tables, shared by copies (which price the same): a
    // PriceMemo's prices belong to the tables that kept them.
    std::uint64_t id_ = 0;
  };

  StepCostOptions opt_;
  Tables tables_;
};

}  // namespace agentsim::serving
