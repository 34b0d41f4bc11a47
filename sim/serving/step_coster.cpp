#include "sim/serving/step_coster.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>

#include "hwmodels/collective.hpp"
#include "hwmodels/memory_tier.hpp"
#include "hwmodels/roofline.hpp"
#include "sim/core/round.hpp"
#include "sim/serving/comm_exposure.hpp"
#include "sim/serving/engram_exposure.hpp"
#include "sim/serving/replica_plan.hpp"
#include "workloads/model/footprint.hpp"
#include "workloads/model/moe_expectation.hpp"

namespace agentsim::serving {

namespace {

// Closed-form collectives on the scale-up figures when no CollectivePricer is
// given: ring all-reduce, all-gather and reduce-scatter, p2p send/recv, direct
// all-to-all (every member sends payload / n to each other member at once).
hw::CollectiveCost closed_form(const hw::System& s, wl::CollectiveOp kind, int group, double payload) {
  const double bw = s.scale_up_bw_Bps, lat = s.scale_up_latency_s;
  if (kind == wl::CollectiveOp::kAllReduce) {
    const hw::CollectiveTime t = hw::ring_all_reduce(payload, group, bw, lat);
    return {"ring", t.latency_s, t.transfer_s, 2 * (group - 1)};
  }
  if (kind == wl::CollectiveOp::kSendRecv) return {"p2p", lat, payload / bw, 1};
  if (kind == wl::CollectiveOp::kAllGather || kind == wl::CollectiveOp::kReduceScatter) {
    const hw::CollectiveTime t = hw::ring_reduce_scatter(payload, group, bw, lat);
    return {"ring", t.latency_s, t.transfer_s, group - 1};
  }
  const double n = group;
  return {"direct", lat, payload * (n - 1) / n / bw, 1};
}

Cause bound_of(const hw::OpTime& t) {
  const double time = t.time_s();
  if (time == t.floor_s && t.floor_s > std::max(t.compute_s, t.memory_s)) return Cause::kFloor;
  return t.compute_s >= t.memory_s ? Cause::kCompute : Cause::kHbm;
}

}  // namespace

// What StepWork visits for one part, priced into a Priced (and rows when asked).
class StepCoster::Pricer {
 public:
  Pricer(const Tables& t, const StepCostOptions& opt, bool draft, int micro, std::size_t spec_decodes,
         double floor_s, StepBreakdown* rows, PriceMemo* memo, AffineProbe* probe, Priced& r)
      : t_(t), opt_(opt), draft_(draft), micro_(micro), spec_decodes_(spec_decodes), floor_s_(floor_s), rows_(rows),
        memo_(memo), probe_(probe), r_(r) {}

  void begin(const wl::StepTokens& tok) {
    tok_ = tok;
    // LM head: speculative verification samples k + 1 positions per decoding sequence.
    const double sampled_spec =
        tok.sampled + static_cast<double>(spec_decodes_ * static_cast<std::size_t>(opt_.spec.draft_tokens));
    lm_scale_ = tok.sampled > 0 ? sampled_spec / tok.sampled : 1.0;
  }

  void op(std::size_t kind, wl::Op id, double layers, wl::Format f, wl::OpAmounts a) {
    mla_ = t_.work_.dense_mla(kind);
    if (id == wl::Op::kLmHead && lm_scale_ != 1.0) {
      a.flops *= lm_scale_;
      a.act_write *= lm_scale_;
    }
    r_.flops += a.flops;
    r_.weight_bytes += a.weight_read;
    r_.kv_read_bytes += a.kv_read;
    r_.kv_write_bytes += a.kv_write;
    r_.host_read_bytes += a.host_read;
    const double L = std::max(1.0, layers);
    const std::size_t s = static_cast<std::size_t>(f);
    const hw::DType dt = t_.math_[s];
    const double bytes = a.weight_read + (a.kv_read + a.kv_write) + (a.act_read + a.act_write);
    double e_compute = opt_.efficiency.compute, e_memory = opt_.efficiency.memory;
    std::string note;
    if (rows_ != nullptr) note = t_.math_note_[s];
    const double kernels = L * wl::info(id).kernels_per_layer;
    const hw::OpTime ot = memo_ == nullptr ? price_op(id, L, s, dt, a, bytes, kernels, e_compute, e_memory, note)
                                           : remembered_op(id, L, s, dt, a, bytes, kernels, e_compute, e_memory, note);
    if (probe_ != nullptr && wl::info(id).reads_contexts) {
      probe_->ops.push_back({id, bound_of(ot), shape(id, L, dt, a, bytes)});
    }
    const double host_s = a.host_read > 0 ? a.host_read / t_.host_bw_Bps_ + t_.host_latency_s_ : 0.0;
    const double time_s = ot.time_s();
    r_.roof_s += time_s;
    r_.compute_s += ot.compute_s;
    r_.memory_s += ot.memory_s;
    if (id == wl::Op::kEngram) {
      r_.engram_host_s += host_s;
      r_.engram_host_bytes += a.host_read;
    } else {
      r_.host_s += host_s;
    }
    if (layers > 0) r_.layer_ops_s += time_s;
    if (id == wl::Op::kLmHead) r_.lm_head_s += time_s;
    if (t_.work_.moe(kind)) add_stage(id, layers, time_s);
    if (rows_ == nullptr) return;
    OpCost& o = rows_->ops.emplace_back();
    o.layer_kind = t_.work_.kind_name(kind);
    o.op = std::string(wl::to_string(id));
    o.layers = layers;
    o.dtype = std::string(hw::to_string(dt));
    o.flops = a.flops;
    o.weight_bytes = a.weight_read;
    o.kv_bytes = a.kv_read + a.kv_write;
    o.act_bytes = a.act_read + a.act_write;
    o.host_bytes = a.host_read;
    o.kernels = kernels;
    if (a.flops > 0) o.e_compute = e_compute;
    if (bytes > 0) o.e_memory = e_memory;
    o.compute_s = ot.compute_s;
    o.memory_s = ot.memory_s;
    o.floor_s = ot.floor_s;
    o.host_s = host_s;
    o.time_s = time_s;
    o.bound = bound_of(ot);
    o.note = std::move(note);
  }

  void collective(std::size_t kind, wl::CollectiveOp c, std::string_view where, int group, double count,
                  double payload) {
    if (draft_) return;
    const hw::CollectiveCost cc = memo_ == nullptr ? price_collective(c, group, payload)
                                                   : remembered_collective(c, group, payload);
    const bool all_to_all = c == wl::CollectiveOp::kDispatch || c == wl::CollectiveOp::kCombine;
    // A decode step's all-to-all across systems (verified drafts included) runs the engine's
    // low-latency kernels, at their measured share of the links' rate where the engine states one.
    const double a2a_eff = opt_.engine.decode_all_to_all_nic_efficiency;
    const bool low_latency = all_to_all && a2a_eff > 0 && t_.ep_spans_systems_ &&
                             tok_.prefill_tokens <= tok_.output_chunk_tokens;  // no prompt tokens: a decode step
    double transfer = cc.measured ? cc.transfer_s : cc.transfer_s / (low_latency ? a2a_eff : opt_.efficiency.network);
    if (all_to_all && t_.work_.plan().ep > 1) transfer *= opt_.ep_imbalance;
    const double latency_s = count * cc.latency_s, transfer_s = count * transfer;
    r_.alpha_s += latency_s;
    r_.beta_s += transfer_s;
    // The expert exchange, whichever collectives carry it, is the MoE stage's dispatch and combine.
    if (c == wl::CollectiveOp::kDispatch || c == wl::CollectiveOp::kAllGather) r_.stages.dispatch_s += latency_s + transfer_s;
    if (c == wl::CollectiveOp::kCombine || c == wl::CollectiveOp::kReduceScatter) r_.stages.combine_s += latency_s + transfer_s;
    if (c == wl::CollectiveOp::kAllReduce) {
      r_.allreduces += static_cast<int>(core::llround(count * micro_));
      r_.allreduce_bytes = std::max(r_.allreduce_bytes, payload);
    }
    if (rows_ == nullptr) return;
    CollectiveCostRow& row = rows_->collectives.emplace_back();
    row.kind = std::string(wl::to_string(c));
    row.where = kind == wl::StepWork::kModel ? std::string(where) : t_.work_.kind_name(kind) + std::string(where);
    row.group = group;
    row.count = count;
    row.payload_bytes = payload;
    row.algorithm = cc.algorithm;
    if (low_latency && !cc.measured) {
      char eff[64];
      std::snprintf(eff, sizeof eff, ", low-latency at %.2f of link rate", a2a_eff);
      row.algorithm += eff;
    }
    row.latency_s = latency_s;
    row.transfer_s = transfer_s;
  }

 private:
  // A MoE layer's op time, under the two-batch-overlap stage that runs it (comm_exposure.hpp).
  void add_stage(wl::Op id, double layers, double time_s) {
    TwoBatchSide& st = r_.stages;
    switch (id) {
      case wl::Op::kAttnProj: case wl::Op::kNormAct: st.prep_s += time_s; break;
      case wl::Op::kAttnCore: case wl::Op::kIndexer: case wl::Op::kRouter: st.core_s += time_s; break;
      case wl::Op::kSharedExperts: st.shared_s += time_s; break;
      case wl::Op::kRoutedExperts: st.experts_s += time_s, st.moe_layers += layers; break;
      case wl::Op::kLatentProj: st.experts_s += time_s; break;
      default: break;
    }
  }

  // The op's efficiencies (looked up when the options have kernel tables) and its time on the roofline.
  [[gnu::always_inline]] hw::OpTime price_op(wl::Op id, double L, std::size_t s, hw::DType dt,
                                             const wl::OpAmounts& a, double bytes, double kernels, double& e_compute,
                                             double& e_memory, std::string& note) const {
    double floor = kernels * floor_s_;
    if (const KernelEfficiency* eff = opt_.kernels.get()) {
      const KernelShape ks = shape(id, L, dt, a, bytes);
      if (a.flops > 0) e_compute = look(eff->compute(ks), note);
      if (bytes > 0) e_memory = look(eff->memory(ks), note);
      // A kernel's own floor per call (its fixed cost, measured at a tiny input), one call a layer,
      // where it is above the launch floors.
      const CallFloor cf = eff->call_floor(ks);
      if (L * cf.time_s > floor) {
        floor = L * cf.time_s;
        if (rows_ != nullptr) note += (note.empty() ? "" : "; ") + cf.note + " (call floor)";
      }
    }
    const hw::Accelerator& acc = t_.system_->accelerator;
    const double peak = a.flops > 0 ? (t_.peak_[s] > 0 ? t_.peak_[s] : acc.peak_flops_for(dt)) : 0.0;
    const double load = id == wl::Op::kRoutedExperts && t_.work_.plan().ep > 1 ? opt_.ep_imbalance : 1.0;
    return hw::op_time(a.flops, peak, e_compute, bytes, acc.hbm_bw_Bps, e_memory, floor, load);
  }
  // price_op through the memo: everything the lookup and the roofline read is the key (shape()
  // included: only the attention core's shape reads the contexts).
  hw::OpTime remembered_op(wl::Op id, double L, std::size_t s, hw::DType dt, const wl::OpAmounts& a, double bytes,
                           double kernels, double& e_compute, double& e_memory, std::string& note) const {
    const PriceMemo::OpKey key{static_cast<double>(id), static_cast<double>(s), L, a.flops, a.weight_read,
                               a.kv_read, a.kv_write, a.act_read, a.act_write, a.experts, floor_s_,
                               tok_.all_tokens, tok_.decode_tokens, id == wl::Op::kAttnCore ? tok_.context_sum : 0.0,
                               static_cast<double>(tok_.prefill_chunks), (mla_ ? 1.0 : 0.0) + (verify_only() ? 2.0 : 0.0)};
    if (const PriceMemo::OpPrice* kept = memo_->op(key)) {
      e_compute = kept->e_compute;
      e_memory = kept->e_memory;
      return kept->time;
    }
    const hw::OpTime ot = price_op(id, L, s, dt, a, bytes, kernels, e_compute, e_memory, note);
    memo_->keep_op(key, {e_compute, e_memory, ot});
    return ot;
  }
  [[gnu::always_inline]] hw::CollectiveCost price_collective(wl::CollectiveOp c, int group, double payload) const {
    return opt_.collectives ? opt_.collectives->price(c, payload) : closed_form(*t_.system_, c, group, payload);
  }
  hw::CollectiveCost remembered_collective(wl::CollectiveOp c, int group, double payload) const {
    const PriceMemo::CollectiveKey key{static_cast<double>(c), static_cast<double>(group), payload};
    hw::CollectiveCost cc;
    if (const PriceMemo::CollectivePrice* kept = memo_->collective(key)) {
      cc.latency_s = kept->latency_s;
      cc.transfer_s = kept->transfer_s;
      cc.measured = kept->measured;
      return cc;
    }
    cc = price_collective(c, group, payload);
    memo_->keep_collective(key, {cc.latency_s, cc.transfer_s, cc.measured});
    return cc;
  }

  // The kernel shape the efficiency lookup is keyed by (one layer's call).
  KernelShape shape(wl::Op id, double L, hw::DType dt, const wl::OpAmounts& a, double bytes) const {
    const wl::ModelSpec& m = t_.work_.model();
    const wl::ParallelPlan& plan = t_.work_.plan();
    const double h = m.hidden, ab = hw::bytes_per_element(m.precision.activations);
    KernelShape ks;
    ks.dtype = dt;
    ks.flops = a.flops / L;
    ks.bytes = bytes / L;
    const double tokens = a.act_read > 0 ? a.act_read / (L * h * ab) : tok_.all_tokens;
    const double decode_seqs = tok_.decode_tokens;
    if (id == wl::Op::kRoutedExperts) {
      // The priced (busiest expert-parallel) device's call: the expert slices it streams, and the
      // routed token-expert pairs per slice (`tokens` is its pairs over the stage's devices).
      ks.kind = KernelKind::kGroupedGemm;
      ks.groups = std::max(1.0, a.experts);
      ks.m = std::max(1.0, tokens * plan.devices_per_stage() / plan.ep / ks.groups);
      ks.k = h;
      ks.weight_bytes = a.weight_read / L;
      // Stored bytes per weight with its share of the block scales (FP4: half a byte plus its
      // scales), so that n is the expert's width in weights, as the tables' rows count it.
      const double stored = t_.work_.expert_bytes_per_weight();
      ks.n = std::max(1.0, ks.weight_bytes / ks.groups / h / (stored > 0 ? stored : 1.0));
    } else if (id == wl::Op::kAttnCore) {
      const double chunks = static_cast<double>(tok_.prefill_chunks);
      ks.kind = decode_seqs > 0 && tok_.prefill_chunks == 0 ? KernelKind::kAttentionDecode : KernelKind::kAttentionPrefill;
      ks.batch = std::max(1.0, decode_seqs + chunks) / plan.attn_dp;
      ks.context = decode_seqs > 0 ? std::max(1.0, tok_.context_sum / decode_seqs) : std::max(1.0, tok_.all_tokens);
      // A dense-MLA call of the decode kernel (a decode step, or speculative verification, which runs
      // it with k + 1 queries a sequence): its query heads (sequences x the heads a tensor-parallel
      // rank holds x queries a sequence).
      if (mla_ && (ks.kind == KernelKind::kAttentionDecode || verify_only())) {
        const double queries = ks.kind == KernelKind::kAttentionDecode ? 1.0 : tok_.output_chunk_tokens / chunks;
        ks.query_heads = ks.batch * m.attention.heads / plan.tp * queries;
      }
    } else if (a.weight_read > 0 && a.flops > 0) {
      ks.kind = KernelKind::kGemm;
      ks.m = std::max(1.0, tokens);
      ks.k = h;
      ks.n = std::max(1.0, a.flops / (2.0 * ks.m * h * L));
    } else {
      ks.kind = KernelKind::kOther;
    }
    return ks;
  }

  // Every chunk of the step verifies drafted tokens (no prompt chunk, no plain decode).
  bool verify_only() const {
    return tok_.decode_tokens == 0 && tok_.prefill_chunks > 0 && tok_.output_chunk_tokens == tok_.prefill_tokens;
  }

  // The looked-up value; an extrapolated lookup or a fallback adds its note to the row's.
  double look(const EfficiencyValue& e, std::string& note) const {
    if (rows_ != nullptr && (e.extrapolated || !e.note.empty()) && note.find(e.note) == std::string::npos) {
      note += (note.empty() ? "" : "; ") + e.note;
    }
    return e.value;
  }

  const Tables& t_;
  const StepCostOptions& opt_;
  bool draft_;
  int micro_;
  std::size_t spec_decodes_;  // decodes verified as k + 1 token chunks (speculative decoding)
  double floor_s_;            // launch floor per kernel of this step
  StepBreakdown* rows_;
  PriceMemo* memo_;
  AffineProbe* probe_;
  Priced& r_;
  wl::StepTokens tok_;
  double lm_scale_ = 1.0;
  bool mla_ = false;  // the op being priced is in a dense-MLA layer kind (its decode calls have a call floor)
};

StepCoster::StepCoster(const wl::ModelSpec& model, const hw::System& system, StepCostOptions opt)
    : opt_(std::move(opt)), tables_(model, system, opt_) {}

StepCost StepCoster::price_once(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                                const StepCostOptions& opt, bool breakdown) {
  if (batch.empty()) return StepCost{};
  return Tables(model, system, opt).price(batch, opt, breakdown, 0, nullptr);
}

StepCoster::View StepCoster::View::part(int parts, int index) const {
  // Round robin: decode i goes to part i % parts, prefill j to part (j + decodes) % parts.
  const std::size_t P = static_cast<std::size_t>(parts), I = static_cast<std::size_t>(index);
  View out = *this;
  out.dec_start = dec_start + I * dec_stride;
  out.dec_stride = dec_stride * P;
  out.dec_count = dec_count > I ? (dec_count - I + P - 1) / P : 0;
  const std::size_t j0 = (I + P - dec_count % P) % P;
  out.pre_start = pre_start + j0 * pre_stride;
  out.pre_stride = pre_stride * P;
  out.pre_count = pre_count > j0 ? (pre_count - j0 + P - 1) / P : 0;
  return out;
}

StepCoster::Tables::Tables(const wl::ModelSpec& model, const hw::System& system, const StepCostOptions& opt)
    : work_(model, opt.plan), system_(&system), ep_spans_systems_(ep_spans_systems(opt.plan, system.accelerators)) {
  static std::atomic<std::uint64_t> next_id{1};
  id_ = next_id.fetch_add(1, std::memory_order_relaxed);
  auto floor = [&](bool graph) {
    CallFloor f = opt.kernels ? opt.kernels->launch_floor(graph) : CallFloor{};
    if (f.time_s > 0) return f;
    f.time_s = system.accelerator.launch_floor_s * (graph ? opt.graph_floor_fraction : 1.0);
    f.note = graph ? "catalog launch_floor x graph_floor_fraction" : "catalog launch_floor";
    return f;
  };
  const CallFloor eager = floor(false), replayed = opt.cuda_graph ? floor(true) : eager;
  eager_floor_s_ = eager.time_s;
  graph_floor_s_ = replayed.time_s;
  eager_floor_note_ = eager.note;
  graph_floor_note_ = replayed.note;
  const wl::ParallelPlan& plan = work_.plan();
  for (const hw::MemoryTier& t : hw::memory_tiers(system)) {
    if (t.kind != hw::TierKind::kHostDram) continue;
    const int users = opt.host_link_users > 0 ? opt.host_link_users : plan.devices();
    host_bw_Bps_ = hw::packed_per_gpu_bw_Bps(t, std::min(users, system.accelerators));
    host_latency_s_ = t.latency_s;
  }
  if (host_bw_Bps_ <= 0) host_bw_Bps_ = system.host.gpu_link_bw_Bps > 0 ? system.host.gpu_link_bw_Bps : 1e12;
  if (opt.host_kv_load_tokens > 0) {
    const wl::Footprint f = wl::footprint(model, plan);
    host_kv_bytes_ = opt.host_kv_load_tokens * f.kv_bytes_per_token / plan.attn_dp;  // per stage already
  }

  // The format the math runs in: the op's own when the accelerator has a peak
  // for it, else the next wider one it has (e.g. MXFP4 experts on MI300X run
  // dequantized to FP8/BF16 math).
  const hw::Accelerator& acc = system.accelerator;
  static constexpr std::array kOrder = {hw::DType::kFp4, hw::DType::kFp8, hw::DType::kBf16, hw::DType::kFp32};
  for (std::size_t s = 0; s < wl::kFormats; ++s) {
    const hw::DType d = work_.dtype(static_cast<wl::Format>(s));
    math_[s] = d;
    bool started = false;
    for (hw::DType x : kOrder) {
      if (x == d) started = true;
      if (started && acc.peak_flops.count(x)) {
        math_[s] = x;
        break;
      }
    }
    const auto it = acc.peak_flops.find(math_[s]);
    peak_[s] = it == acc.peak_flops.end() ? 0.0 : it->second;
    if (math_[s] != d) {
      const std::string from(hw::to_string(d)), to(hw::to_string(math_[s]));
      math_note_[s] = from + " math runs as " + to + " (no " + from + " peak on " + acc.name + ")";
    }
  }
}

StepCoster::Priced StepCoster::Tables::price(const View& v, const StepCostOptions& opt, bool spec, bool draft,
                                             int micro, double floor_s, StepBreakdown* rows, PriceMemo* memo,
                                             AffineProbe* probe) const {
  // The batch as StepWork visits it: the prefill chunks, then with speculative
  // decoding one k + 1 token chunk per decode over its cached context (one pass
  // over the KV, k + 1 queries); else the decode contexts.
  struct Batch {
    const View& v;
    bool spec;
    double verify_tokens;
    std::size_t prefill_count() const { return v.pre_count + (spec ? v.dec_count : 0); }
    wl::PrefillShape chunk(std::size_t i) const {
      if (i < v.pre_count) {
        const PrefillChunk& c = v.chunk(i);
        return {static_cast<double>(c.tokens), static_cast<double>(c.cached_tokens), c.completes_prompt};
      }
      return {verify_tokens, static_cast<double>(v.context(i - v.pre_count)), true, true};
    }
    std::size_t decode_count() const { return spec ? 0 : v.dec_count; }
    long long context(std::size_t i) const { return v.context(i); }
  };
  Priced r;
  Pricer pricer(*this, opt, draft, micro, spec ? v.dec_count : 0, floor_s, rows, memo, probe, r);
  const std::uint64_t present =
      work_.visit(Batch{v, spec, static_cast<double>(opt.spec.draft_tokens + 1)}, pricer);
  r.layers = work_.layers(present);
  if (!draft && opt.host_kv_load_tokens > 0) {
    const double host_s = host_kv_bytes_ / host_bw_Bps_ + std::max(1.0, r.layers) * host_latency_s_;  // layer by layer
    r.host_s += host_s;
    if (rows != nullptr) {
      OpCost& o = rows->ops.emplace_back();
      o.layer_kind = "model";
      o.op = std::string(wl::to_string(wl::Op::kHostKvLoad));
      o.layers = r.layers;
      o.dtype = std::string(hw::to_string(work_.model().precision.kv_cache));
      o.host_bytes = host_kv_bytes_;
      o.host_s = host_s;
      o.bound = Cause::kHostLink;
    }
  }
  return r;
}

StepCost StepCoster::Tables::price(const StepBatch& batch, const StepCostOptions& opt, bool breakdown,
                                   long long shift, PriceMemo* memo, AffineProbe* probe) const {
  StepCost c;
  if (probe != nullptr) {
    probe->ops.clear();
    probe->eligible = false;
  }
  if (batch.empty()) return c;
  StepBreakdown& bd = c.breakdown;
  StepBreakdown* rows = breakdown ? &bd : nullptr;
  // A breakdown's rows and notes come from pricing itself; without lookup tables pricing an op
  // costs less than remembering it.
  if (rows != nullptr || (!opt.kernels && !opt.collectives)) memo = nullptr;
  if (memo != nullptr) memo->begin_step(id_);
  const int pp = work_.plan().pp;
  const int micro = pp > 1 ? std::max(1, opt.micro_batches) : 1;
  View whole;
  whole.dec = batch.decodes.data();
  whole.dec_count = batch.decodes.size();
  whole.shift = shift;
  whole.pre = batch.prefills.data();
  whole.pre_count = batch.prefills.size();
  const View mb = micro > 1 ? whole.part(micro, 0) : whole;  // one micro-batch through one stage
  const bool tbo = opt.overlap == Overlap::kTwoBatch && mb.dec_count + mb.pre_count >= 2;
  const bool spec = opt.spec.enabled();
  // Engines replay captured graphs for decode-only steps (up to their largest captured
  // batch); prefill and mixed steps launch their kernels eagerly.
  const bool graph = opt.cuda_graph && opt.engine.graph_step(batch, work_.plan().attn_dp);
  const double floor_s = graph ? graph_floor_s_ : eager_floor_s_;

  std::array<Priced, 2> parts{};
  const std::size_t n_parts = tbo ? 2 : 1;
  if (tbo) {
    parts[0] = price(mb.part(2, 0), opt, spec, false, micro, floor_s, rows, memo);
    parts[1] = price(mb.part(2, 1), opt, spec, false, micro, floor_s, rows, memo);
  } else {
    parts[0] = price(mb, opt, spec, false, micro, floor_s, rows, memo, probe);
  }
  double roof = 0, comp = 0, mem = 0, alpha = 0, beta = 0, host = 0;
  for (std::size_t i = 0; i < n_parts; ++i) {
    const Priced& p = parts[i];
    roof += p.roof_s;
    comp += p.compute_s;
    mem += p.memory_s;
    alpha += p.alpha_s;
    beta += p.beta_s;
    // KV loads from host: prefetched loads hide behind the ops except the first layer's share.
    if (p.host_s > 0) {
      host += !opt.host_prefetch ? p.host_s : std::max(p.host_s - p.roof_s, p.host_s / std::max(1.0, p.layers));
    }
    // Engram rows read over the host link (engram_exposure.hpp).
    double engram = 0;
    if (p.engram_host_bytes > 0) {
      const double layer_s = p.layers > 0 ? p.layer_ops_s / p.layers : 0.0;
      engram = engram_host_exposed_s(p.engram_host_bytes, host_bw_Bps_, host_latency_s_, work_.model().engram.layers,
                                     layer_s, opt.engram_prefetch);
    }
    host += engram;
    bd.engram_host_exposed_s += engram;
    bd.engram_host_transfer_s += p.engram_host_s;
    bd.engram_host_bytes += p.engram_host_bytes;
  }
  bd.engram_host_bytes *= micro;
  bd.engram_host_transfer_s *= micro;
  bd.engram_host_exposed_s *= micro;
  bd.host_link_bw_Bps = host_bw_Bps_;
  const CommExposure exposed = tbo ? two_batch_exposure(batch.prefills.empty(), parts[0].stages, parts[1].stages, alpha, beta)
                                   : comm_exposure(opt.overlap, roof, alpha, beta);
  bd.exposed_comm_s = micro * (exposed.alpha_s + exposed.beta_s);
  bd.hidden_comm_s = micro * (alpha + beta) - bd.exposed_comm_s;
  bd.micro_batch_s = roof + exposed.alpha_s + exposed.beta_s + host;
  if (tbo && breakdown) {
    const TwoBatchSide& a = parts[0].stages;
    const TwoBatchSide& b = parts[1].stages;
    const double a2a = a.dispatch_s + a.combine_s + b.dispatch_s + b.combine_s;
    char text[320];
    std::snprintf(text, sizeof text,
                  "two-batch overlap (SGLang's %s stage schedule): expert all-to-alls %.3f ms, %.3f ms of them in "
                  "flight under the other micro-batch's ops; other collectives %.3f ms, in the stream",
                  batch.prefills.empty() ? "decode" : "prefill", 1e3 * micro * a2a, 1e3 * bd.hidden_comm_s,
                  1e3 * micro * std::max(0.0, alpha + beta - a2a));
    bd.notes.emplace_back(text);
  }
  bd.bubble_s = pp > 1 ? (pp - 1) * bd.micro_batch_s : 0.0;

  // Drafting: k sequential passes of a one-layer MTP module plus the LM head over the decoding sequences.
  if (spec && !batch.decodes.empty()) {
    View dec = whole;
    dec.pre_count = 0;
    const Priced d = price(dec, opt, false, true, micro, floor_s, nullptr, memo);
    const double per_layer = d.layers > 0 ? d.layer_ops_s / d.layers : 0.0;
    bd.draft_s = opt.spec.draft_tokens * (opt.spec.draft_layers * per_layer * pp + d.lm_head_s);
    bd.tokens_per_step = opt.spec.expected_tokens_per_step();
  }

  for (std::size_t i = 0; i < n_parts; ++i) {
    const Priced& p = parts[i];
    c.flops += micro * p.flops;
    c.weight_bytes += micro * p.weight_bytes;
    c.kv_read_bytes += micro * p.kv_read_bytes;
    c.kv_write_bytes += micro * p.kv_write_bytes;
    c.host_bytes += micro * p.host_read_bytes;
    c.allreduces += p.allreduces;
    c.allreduce_bytes = std::max(c.allreduce_bytes, p.allreduce_bytes);
  }
  if (tbo) c.allreduces /= 2;

  CauseTotals& k = bd.causes;
  if (breakdown) finish_breakdown(bd, opt, micro, spec && !batch.decodes.empty());
  k.host_link_s = micro * host;
  k.floor_s += micro * exposed.alpha_s;
  k.network_s = micro * exposed.beta_s;
  c.compute_s = micro * comp;
  c.memory_s = micro * mem;
  c.compute_bound = c.compute_s >= c.memory_s;
  c.comm_latency_s = micro * exposed.alpha_s;
  c.comm_transfer_s = micro * (exposed.beta_s + host);
  // The accelerators' time for the step; an overlap scheduler's host work runs alongside it.
  const double device_s = std::max(c.compute_s, c.memory_s) + c.comm_latency_s + c.comm_transfer_s +
                          micro * (roof - std::max(comp, mem)) + bd.bubble_s + bd.draft_s;
  const EngineOverhead::Terms engine = opt.engine.terms(batch, work_.plan().attn_dp);
  const double engine_s = opt.engine.exposed_s(engine, device_s);
  bd.host_hidden_s = engine.total_s() - engine_s;
  k.overhead_s = opt.step_overhead_s + engine_s + bd.bubble_s + bd.draft_s;
  c.overhead_s = micro * (roof - std::max(comp, mem)) + k.overhead_s;
  c.total_s = std::max(c.compute_s, c.memory_s) + c.comm_latency_s + c.comm_transfer_s + c.overhead_s;
  if (probe != nullptr) {
    probe->eligible = batch.prefills.empty() && opt.overlap == Overlap::kNone && !spec && host == 0 &&
                      bd.engram_host_bytes == 0;
    probe->compute_bound = c.compute_bound;
    // Without the overlap scheduler the host work is exposed whatever the device time: no kink.
    probe->host_hidden = !opt.engine.overlap_scheduler || engine.sequences_s + engine.tokens_s <= device_s;
  }
  if (breakdown) {
    const char* how = !opt.cuda_graph ? "eager launches"
                      : graph         ? "cuda graph: replayed"
                                      : "cuda graph: not replayed (prefill, mixed or larger than the captured batches)";
    char us[32];
    std::snprintf(us, sizeof us, "%.3g", floor_s * 1e6);
    bd.notes.push_back(std::string(how) + ", launch floor " + us + " us per kernel (" +
                       (graph ? graph_floor_note_ : eager_floor_note_) + ")");
  }
  return c;
}

bool StepCoster::affine_between(const StepBatch& batch, long long lo, long long hi, const AffineProbe& a,
                                const AffineProbe& b) const {
  if (!a.eligible || !b.eligible || a.compute_bound != b.compute_bound || a.host_hidden != b.host_hidden) return false;
  if (a.ops.size() != b.ops.size()) return false;
  for (std::size_t i = 0; i < a.ops.size(); ++i) {
    const AffineProbe::Op& x = a.ops[i];
    const AffineProbe::Op& y = b.ops[i];
    if (x.id != y.id || x.bound != y.bound) return false;
    if (opt_.kernels && !opt_.kernels->constant_between(x.shape, y.shape)) return false;
  }
  // Each decode's attention work is affine in its context between kinks.
  const std::vector<double>& kinks = tables_.work().decode_kinks();
  if (kinks.empty()) return true;
  for (const DecodeItem& d : batch.decodes) {
    const double from = static_cast<double>(d.context_tokens + lo), to = static_cast<double>(d.context_tokens + hi);
    for (double k : kinks) {
      if (from < k && k < to) return false;
    }
  }
  return true;
}

// The breakdown's notes (sorted, once each) and each op's time booked to its bound.
void StepCoster::Tables::finish_breakdown(StepBreakdown& bd, const StepCostOptions& opt, int micro, bool drafted) {
  if (drafted) {
    bd.notes.push_back("speculative decoding: k=" + std::to_string(opt.spec.draft_tokens) + ", expected tokens/step " +
                       std::to_string(bd.tokens_per_step));
  }
  for (const OpCost& o : bd.ops) {
    if (!o.note.empty()) bd.notes.push_back(o.layer_kind + " " + o.op + ": " + o.note);
  }
  std::sort(bd.notes.begin(), bd.notes.end());
  bd.notes.erase(std::unique(bd.notes.begin(), bd.notes.end()), bd.notes.end());
  for (const OpCost& o : bd.ops) {
    if (o.op == wl::to_string(wl::Op::kHostKvLoad)) continue;
    const double t = micro * o.time_s;
    if (o.bound == Cause::kCompute) bd.causes.compute_s += t;
    else if (o.bound == Cause::kHbm) bd.causes.hbm_s += t;
    else bd.causes.floor_s += t;
  }
}

}  // namespace agentsim::serving
