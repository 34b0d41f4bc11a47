#include "sim/serving/step_cost.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <string>
#include <utility>

#include "hwmodels/collective.hpp"
#include "hwmodels/memory_tier.hpp"
#include "sim/serving/comm_exposure.hpp"
#include "sim/serving/engram_exposure.hpp"
#include "sim/serving/step_coster.hpp"
#include "workloads/batch_work.hpp"
#include "workloads/footprint.hpp"
#include "workloads/moe_expectation.hpp"

namespace agentsim::serving {

std::string_view to_string(Overlap o) { return core::name_of(kOverlapNames, o); }

std::string_view to_string(Cause c) {
  switch (c) {
    case Cause::kCompute: return "compute";
    case Cause::kHbm: return "hbm";
    case Cause::kHostLink: return "host_link";
    case Cause::kNetwork: return "network";
    case Cause::kFloor: return "floor";
    case Cause::kOverhead: return "overhead";
  }
  return "compute";
}

namespace {

// Kernel launches per layer of each op (assumed: what vLLM/SGLang run after
// their usual fusions, e.g. attn_proj = input norm, QKV GEMM, RoPE + cache
// write, output GEMM; dense_ffn = norm, gate/up GEMM with fused SiLU, down).
double kernels_per_layer(const std::string& op) {
  static const std::map<std::string, double> k = {
      {"attn_proj", 4}, {"attn_core", 1}, {"indexer", 2},   {"router", 2},     {"shared_experts", 2},
      {"latent_proj", 2}, {"routed_experts", 4}, {"dense_ffn", 3}, {"embedding", 1}, {"engram", 1},
      {"lm_head", 2},
  };
  const auto it = k.find(op);
  return it == k.end() ? 1.0 : it->second;
}

// The format the math runs in: the op's own when the accelerator has a peak
// for it, else the next wider one it has (e.g. MXFP4 experts on MI300X run
// dequantized to FP8/BF16 math).
std::pair<hw::DType, std::string> math_dtype(const hw::Accelerator& acc, hw::DType d) {
  static constexpr std::array kOrder = {hw::DType::kFp4, hw::DType::kFp8, hw::DType::kBf16, hw::DType::kFp32};
  bool from = false;
  for (hw::DType x : kOrder) {
    if (x == d) from = true;
    if (from && acc.peak_flops.count(x)) {
      if (x == d) return {x, ""};
      return {x, std::string(hw::to_string(d)) + " math runs as " + std::string(hw::to_string(x)) + " (no " +
                     std::string(hw::to_string(d)) + " peak on " + acc.name + ")"};
    }
  }
  return {d, ""};
}

wl::BatchShape to_shape(const StepBatch& b, const SpecDecodeOptions& spec) {
  wl::BatchShape s;
  for (const PrefillChunk& p : b.prefills) {
    s.prefill.push_back({static_cast<double>(p.tokens), static_cast<double>(p.cached_tokens), p.completes_prompt});
  }
  if (spec.enabled()) {
    // Verification runs the k + 1 tokens of a sequence like a short prefill
    // chunk over its cached context (one pass over the KV, k + 1 queries).
    for (const DecodeItem& d : b.decodes) {
      s.prefill.push_back({static_cast<double>(spec.draft_tokens + 1), static_cast<double>(d.context_tokens), true, true});
    }
  } else {
    for (const DecodeItem& d : b.decodes) s.decode_contexts.push_back(static_cast<double>(d.context_tokens));
  }
  return s;
}

struct Priced {
  std::vector<OpCost> ops;
  std::vector<CollectiveCostRow> collectives;
  double roof_s = 0;         // sum of op times (host exposure excluded)
  double compute_s = 0, memory_s = 0;
  double host_s = 0;         // host-link time of the KV loads before overlap
  double engram_host_s = 0;  // Engram rows over the host link before overlap
  double engram_host_bytes = 0;
  double alpha_s = 0, beta_s = 0;
  double layers = 0;         // transformer layers on the device
  double layer_ops_s = 0;    // op time of the transformer layers (drafting estimate)
  double lm_head_s = 0;
  wl::BatchWork work;
};

struct Ctx {
  const wl::ModelSpec& model;
  const hw::System& system;
  const StepCostOptions& opt;
  const KernelEfficiency& eff;
  wl::ParallelPlan plan;
  double floor_s = 0;
  double host_bw_Bps = 0;
  double host_latency_s = 0;
  bool detail = true;  // false: totals only (no per-op rows, collective rows or notes)
};

hw::CollectiveCost closed_form(const Ctx& c, const wl::CollectiveWork& w) {
  const hw::System& s = c.system;
  const double bw = s.scale_up_bw_Bps, lat = s.scale_up_latency_s;
  if (w.kind == "all_reduce") {
    const hw::CollectiveTime t = hw::ring_all_reduce(w.payload_bytes, w.group, bw, lat);
    return {"ring", t.latency_s, t.transfer_s, 2 * (w.group - 1)};
  }
  if (w.kind == "send_recv") return {"p2p", lat, w.payload_bytes / bw, 1};
  // Direct all-to-all: every member sends payload / n to each other member at once.
  const double n = w.group;
  return {"direct", lat, w.payload_bytes * (n - 1) / n / bw, 1};
}

Priced price(const Ctx& c, const wl::BatchShape& shape, const StepBatch& batch) {
  Priced r;
  r.work = wl::batch_work(c.model, c.plan, shape);
  const wl::PrecisionSpec& p = c.model.precision;
  const double h = c.model.hidden;
  const double ab = hw::bytes_per_element(p.activations);
  const hw::Accelerator& acc = c.system.accelerator;
  const bool spec = c.opt.spec.enabled();
  // LM head: speculative verification samples k + 1 positions per decoding sequence.
  double sampled_plain = 0, sampled_spec = 0;
  for (const wl::PrefillChunk& ch : shape.prefill) sampled_plain += ch.samples ? 1 : 0;
  sampled_plain += static_cast<double>(shape.decode_contexts.size());
  sampled_spec = sampled_plain + (spec ? static_cast<double>(batch.decodes.size() * static_cast<std::size_t>(c.opt.spec.draft_tokens)) : 0);
  const double lm_scale = sampled_plain > 0 ? sampled_spec / sampled_plain : 1.0;

  double all_tokens = 0, decode_seqs = static_cast<double>(shape.decode_contexts.size()), ctx_sum = 0;
  for (const wl::PrefillChunk& ch : shape.prefill) all_tokens += ch.new_tokens;
  all_tokens += decode_seqs;
  for (double x : shape.decode_contexts) ctx_sum += x;

  // Layers per kind, few kinds: a flat list (no per-step map nodes).
  std::array<std::pair<const std::string*, double>, 8> kinds{};
  std::size_t n_kinds = 0;
  std::map<std::string, double> layers_overflow;
  for (wl::OpWork& o : r.work.ops) {
    if (o.op == "lm_head" && lm_scale != 1.0) {
      o.flops *= lm_scale;
      o.act_write_bytes *= lm_scale;
    }
    if (o.layers > 0) {
      std::size_t i = 0;
      while (i < n_kinds && *kinds[i].first != o.layer_kind) ++i;
      if (i < n_kinds) {
        kinds[i].second = o.layers;
      } else if (n_kinds < kinds.size()) {
        kinds[n_kinds++] = {&o.layer_kind, o.layers};
      } else {
        layers_overflow[o.layer_kind] = o.layers;
      }
    }
    OpCost oc;
    if (c.detail) {
      oc.layer_kind = o.layer_kind;
      oc.op = o.op;
    }
    oc.layers = o.layers;
    oc.flops = o.flops;
    oc.weight_bytes = o.weight_read_bytes;
    oc.kv_bytes = o.kv_read_bytes + o.kv_write_bytes;
    oc.act_bytes = o.act_read_bytes + o.act_write_bytes;
    oc.host_bytes = o.host_read_bytes;
    const double L = std::max(1.0, o.layers);
    oc.kernels = L * kernels_per_layer(o.op);
    auto [dt, note] = math_dtype(acc, o.dtype);
    if (c.detail) oc.dtype = std::string(hw::to_string(dt));

    KernelShape ks;
    ks.dtype = dt;
    ks.flops = o.flops / L;
    ks.bytes = (oc.weight_bytes + oc.kv_bytes + oc.act_bytes) / L;
    const double tokens = o.act_read_bytes > 0 ? o.act_read_bytes / (L * h * ab) : all_tokens;
    if (o.op == "routed_experts") {
      const double touched = std::max(1.0, wl::expected_distinct_experts(c.model.ffn.experts, c.model.ffn.top_k, tokens *
                                                                         c.plan.devices_per_stage() / c.model.ffn.top_k));
      ks.kind = KernelKind::kGroupedGemm;
      ks.groups = touched / c.plan.ep;
      ks.m = std::max(1.0, tokens * c.plan.devices_per_stage() / touched);
      ks.k = h;
      ks.n = std::max(1.0, o.weight_read_bytes / L / std::max(1.0, ks.groups) / h);
    } else if (o.op == "attn_core") {
      ks.kind = decode_seqs > 0 && shape.prefill.empty() ? KernelKind::kAttentionDecode : KernelKind::kAttentionPrefill;
      ks.batch = std::max(1.0, decode_seqs + static_cast<double>(shape.prefill.size())) / c.plan.attn_dp;
      ks.context = decode_seqs > 0 ? std::max(1.0, ctx_sum / decode_seqs) : std::max(1.0, all_tokens);
    } else if (o.weight_read_bytes > 0 && o.flops > 0) {
      ks.kind = KernelKind::kGemm;
      ks.m = std::max(1.0, tokens);
      ks.k = h;
      ks.n = std::max(1.0, o.flops / (2.0 * ks.m * h * L));
    } else {
      ks.kind = KernelKind::kOther;
    }

    if (o.flops > 0) {
      const EfficiencyValue e = c.eff.compute(ks);
      oc.e_compute = e.value;
      oc.compute_s = o.flops / (acc.peak_flops_for(dt) * e.value);
      if (c.detail && (e.extrapolated || !e.note.empty())) note += (note.empty() ? "" : "; ") + e.note;
    }
    const double bytes = oc.weight_bytes + oc.kv_bytes + oc.act_bytes;
    if (bytes > 0) {
      const EfficiencyValue e = c.eff.memory(ks);
      oc.e_memory = e.value;
      oc.memory_s = bytes / (acc.hbm_bw_Bps * e.value);
      if (c.detail && (e.extrapolated || !e.note.empty())) note += (note.empty() ? "" : "; ") + e.note;
    }
    if (o.op == "routed_experts" && c.plan.ep > 1) {
      oc.compute_s *= c.opt.ep_imbalance;
      oc.memory_s *= c.opt.ep_imbalance;
    }
    oc.floor_s = oc.kernels * c.floor_s;
    if (oc.host_bytes > 0) oc.host_s = oc.host_bytes / c.host_bw_Bps + c.host_latency_s;
    oc.time_s = std::max({oc.compute_s, oc.memory_s, oc.floor_s});
    oc.bound = oc.time_s == oc.floor_s && oc.floor_s > std::max(oc.compute_s, oc.memory_s) ? Cause::kFloor
               : oc.compute_s >= oc.memory_s                                           ? Cause::kCompute
                                                                                       : Cause::kHbm;
    r.roof_s += oc.time_s;
    r.compute_s += oc.compute_s;
    r.memory_s += oc.memory_s;
    if (o.op == "engram") {
      r.engram_host_s += oc.host_s;
      r.engram_host_bytes += oc.host_bytes;
    } else {
      r.host_s += oc.host_s;
    }
    if (o.layers > 0) r.layer_ops_s += oc.time_s;
    if (o.op == "lm_head") r.lm_head_s += oc.time_s;
    if (c.detail) {
      oc.note = std::move(note);
      r.ops.push_back(std::move(oc));
    }
  }
  // Summed in key order, as a map over the kinds would.
  if (layers_overflow.empty()) {
    for (std::size_t i = 1; i < n_kinds; ++i) {
      for (std::size_t j = i; j > 0 && *kinds[j].first < *kinds[j - 1].first; --j) std::swap(kinds[j], kinds[j - 1]);
    }
    for (std::size_t i = 0; i < n_kinds; ++i) r.layers += kinds[i].second;
  } else {
    for (std::size_t i = 0; i < n_kinds; ++i) layers_overflow.emplace(*kinds[i].first, kinds[i].second);
    for (const auto& [kind, n] : layers_overflow) r.layers += n;
  }

  if (c.opt.host_kv_load_tokens > 0) {
    OpCost oc;
    oc.layer_kind = "model";
    oc.op = "host_kv_load";
    oc.layers = r.layers;
    oc.dtype = std::string(hw::to_string(p.kv_cache));
    const wl::Footprint f = wl::footprint(c.model, c.plan);
    oc.host_bytes = c.opt.host_kv_load_tokens * f.kv_bytes_per_token / c.plan.pp / c.plan.attn_dp;
    oc.host_s = oc.host_bytes / c.host_bw_Bps + std::max(1.0, r.layers) * c.host_latency_s;  // loaded layer by layer
    oc.bound = Cause::kHostLink;
    r.host_s += oc.host_s;
    if (c.detail) r.ops.push_back(std::move(oc));
  }

  for (const wl::CollectiveWork& w : r.work.collectives) {
    CollectiveCostRow row;
    row.kind = w.kind;
    row.where = w.where;
    row.group = w.group;
    row.count = w.count;
    row.payload_bytes = w.payload_bytes;
    const hw::CollectiveCost cc = c.opt.collectives ? c.opt.collectives->price(w.kind, w.payload_bytes) : closed_form(c, w);
    row.algorithm = cc.algorithm;
    double transfer = cc.transfer_s / c.opt.efficiency.network;
    if (w.kind.rfind("all_to_all", 0) == 0 && c.plan.ep > 1) transfer *= c.opt.ep_imbalance;
    row.latency_s = w.count * cc.latency_s;
    row.transfer_s = w.count * transfer;
    r.alpha_s += row.latency_s;
    r.beta_s += row.transfer_s;
    if (c.detail) r.collectives.push_back(std::move(row));
  }
  return r;
}

// Splits a batch's sequences round robin into `parts` (the first is largest).
std::vector<StepBatch> split(const StepBatch& b, int parts) {
  std::vector<StepBatch> out(static_cast<std::size_t>(parts));
  for (std::size_t i = 0; i < b.decodes.size(); ++i) out[i % out.size()].decodes.push_back(b.decodes[i]);
  for (std::size_t i = 0; i < b.prefills.size(); ++i) out[(i + b.decodes.size()) % out.size()].prefills.push_back(b.prefills[i]);
  return out;
}

// Exposure of the host-link time of the KV loads: prefetched loads hide behind the ops
// except the first layer's share; otherwise they add in full.
double host_exposed(const Ctx& c, const Priced& r) {
  if (r.host_s <= 0) return 0;
  if (!c.opt.host_prefetch) return r.host_s;
  return std::max(r.host_s - r.roof_s, r.host_s / std::max(1.0, r.layers));
}

// Exposure of the Engram rows read over the host link (engram_exposure.hpp).
double engram_exposed(const Ctx& c, const Priced& r) {
  if (r.engram_host_bytes <= 0) return 0;
  const double layer_s = r.layers > 0 ? r.layer_ops_s / r.layers : 0.0;
  return engram_host_exposed_s(r.engram_host_bytes, c.host_bw_Bps, c.host_latency_s, c.model.engram.layers, layer_s,
                               c.opt.engram_prefetch);
}

StepCost cost_of(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                 const StepCostOptions& opt, bool detail) {
  StepCost c;
  if (batch.empty()) return c;
  const ConstantKernelEfficiency constant(opt.efficiency);
  const KernelEfficiency& eff = opt.kernels ? *opt.kernels : static_cast<const KernelEfficiency&>(constant);
  Ctx ctx{model, system, opt, eff, opt.plan, 0, 0, 0, detail};
  const double lf = eff.launch_floor_s(opt.cuda_graph);
  ctx.floor_s = lf >= 0 ? lf : system.accelerator.launch_floor_s * (opt.cuda_graph ? opt.graph_floor_fraction : 1.0);
  for (const hw::MemoryTier& t : hw::memory_tiers(system)) {
    if (t.kind != hw::TierKind::kHostDram) continue;
    const int users = opt.host_link_users > 0 ? opt.host_link_users : ctx.plan.devices();
    ctx.host_bw_Bps = hw::packed_per_gpu_bw_Bps(t, std::min(users, system.accelerators));
    ctx.host_latency_s = t.latency_s;
  }
  if (ctx.host_bw_Bps <= 0) ctx.host_bw_Bps = system.host.gpu_link_bw_Bps > 0 ? system.host.gpu_link_bw_Bps : 1e12;

  StepBreakdown& bd = c.breakdown;
  const bool pipelined = ctx.plan.pp > 1;
  const int micro = pipelined ? std::max(1, opt.micro_batches) : 1;
  const StepBatch mb = micro > 1 ? split(batch, micro).front() : batch;
  const bool tbo = opt.overlap == Overlap::kTwoBatch && mb.decodes.size() + mb.prefills.size() >= 2;

  // One micro-batch through one stage: ops, then exposed communication.
  std::vector<Priced> parts;
  if (tbo) {
    for (const StepBatch& half : split(mb, 2)) parts.push_back(price(ctx, to_shape(half, opt.spec), half));
  } else {
    parts.push_back(price(ctx, to_shape(mb, opt.spec), mb));
  }
  double roof = 0, comp = 0, mem = 0, alpha = 0, beta = 0, host = 0, layers = 0;
  double engram_transfer = 0, engram_exposed_s = 0, engram_bytes = 0;
  for (const Priced& p : parts) {
    roof += p.roof_s;
    comp += p.compute_s;
    mem += p.memory_s;
    alpha += p.alpha_s;
    beta += p.beta_s;
    host += host_exposed(ctx, p);
    const double engram = engram_exposed(ctx, p);
    host += engram;
    engram_exposed_s += engram;
    engram_transfer += p.engram_host_s;
    engram_bytes += p.engram_host_bytes;
    layers = std::max(layers, p.layers);
  }
  bd.engram_host_bytes = micro * engram_bytes;
  bd.engram_host_transfer_s = micro * engram_transfer;
  bd.engram_host_exposed_s = micro * engram_exposed_s;
  bd.host_link_bw_Bps = ctx.host_bw_Bps;
  const CommExposure exposed = comm_exposure(opt.overlap, tbo, roof, alpha, beta, layers);
  const double exposed_alpha = exposed.alpha_s, exposed_beta = exposed.beta_s;
  bd.exposed_comm_s = micro * (exposed_alpha + exposed_beta);
  bd.hidden_comm_s = micro * (alpha + beta) - bd.exposed_comm_s;
  bd.micro_batch_s = roof + exposed_alpha + exposed_beta + host;
  bd.bubble_s = pipelined ? (ctx.plan.pp - 1) * bd.micro_batch_s : 0.0;

  // Drafting: k sequential passes of a one-layer MTP module plus the LM head
  // over the decoding sequences.
  if (opt.spec.enabled() && !batch.decodes.empty()) {
    StepBatch dec;
    dec.decodes = batch.decodes;
    StepCostOptions plain = opt;
    plain.spec = {};
    const Ctx pctx{model, system, plain, eff, ctx.plan, ctx.floor_s, ctx.host_bw_Bps, ctx.host_latency_s, detail};
    const Priced d = price(pctx, to_shape(dec, plain.spec), dec);
    const double per_layer = d.layers > 0 ? d.layer_ops_s / d.layers : 0.0;
    bd.draft_s = opt.spec.draft_tokens * (opt.spec.draft_layers * per_layer * ctx.plan.pp + d.lm_head_s);
    bd.tokens_per_step = opt.spec.expected_tokens_per_step();
    if (detail) bd.notes.push_back("speculative decoding: k=" + std::to_string(opt.spec.draft_tokens) + ", expected tokens/step " +
                       std::to_string(bd.tokens_per_step));
  }

  for (Priced& p : parts) {
    for (OpCost& o : p.ops) {
      if (!o.note.empty()) bd.notes.push_back(o.layer_kind + " " + o.op + ": " + o.note);
      bd.ops.push_back(std::move(o));
    }
    for (CollectiveCostRow& r : p.collectives) bd.collectives.push_back(std::move(r));
    c.flops += micro * p.work.flops();
    c.weight_bytes += micro * p.work.weight_read_bytes();
    c.kv_read_bytes += micro * p.work.kv_read_bytes();
    c.kv_write_bytes += micro * p.work.kv_write_bytes();
    c.host_bytes += micro * p.work.host_read_bytes();
    for (const wl::CollectiveWork& w : p.work.collectives) {
      if (w.kind != "all_reduce") continue;
      c.allreduces += static_cast<int>(w.count * micro + 0.5);
      c.allreduce_bytes = std::max(c.allreduce_bytes, w.payload_bytes);
    }
  }
  if (tbo) c.allreduces /= 2;
  std::sort(bd.notes.begin(), bd.notes.end());
  bd.notes.erase(std::unique(bd.notes.begin(), bd.notes.end()), bd.notes.end());

  // Causes: each op's time goes to its bound; scaled by the micro-batches.
  CauseTotals& k = bd.causes;
  for (const OpCost& o : bd.ops) {
    if (o.op == "host_kv_load") continue;
    const double t = micro * o.time_s;
    if (o.bound == Cause::kCompute) k.compute_s += t;
    else if (o.bound == Cause::kHbm) k.hbm_s += t;
    else k.floor_s += t;
  }
  k.host_link_s = micro * host;
  k.floor_s += micro * exposed_alpha;
  k.network_s = micro * exposed_beta;
  k.overhead_s = opt.step_overhead_s + opt.engine.host_s(batch) + bd.bubble_s + bd.draft_s;

  c.compute_s = micro * comp;
  c.memory_s = micro * mem;
  c.compute_bound = c.compute_s >= c.memory_s;
  c.comm_latency_s = micro * exposed_alpha;
  c.comm_transfer_s = micro * (exposed_beta + host);
  c.overhead_s = micro * (roof - std::max(comp, mem)) + k.overhead_s;
  c.total_s = std::max(c.compute_s, c.memory_s) + c.comm_latency_s + c.comm_transfer_s + c.overhead_s;
  if (detail && opt.cuda_graph) {
    bd.notes.push_back("cuda graph: launch floor " + std::to_string(ctx.floor_s * 1e6) + " us per kernel");
  }
  return c;
}

}  // namespace

StepCost step_cost(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                   const StepCostOptions& opt) {
  return cost_of(batch, model, system, opt, true);
}

StepCost step_cost_totals(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                          const StepCostOptions& opt) {
  return StepCoster::totals_once(batch, model, system, opt);
}

}  // namespace agentsim::serving
