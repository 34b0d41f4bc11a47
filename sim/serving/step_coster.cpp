#include "sim/serving/step_coster.hpp"

#include <algorithm>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

#include "hwmodels/collective.hpp"
#include "hwmodels/memory_tier.hpp"
#include "sim/serving/comm_exposure.hpp"
#include "sim/serving/engram_exposure.hpp"
#include "sim/core/error.hpp"
#include "workloads/batch_work.hpp"
#include "workloads/footprint.hpp"
#include "workloads/moe_expectation.hpp"

// Every expression below repeats, operand for operand and in the same order,
// the one in workloads/batch_work.cpp and step_cost.cpp (price, cost_of) that it
// replaces: the totals must stay bit-identical to step_cost_totals' reference.

namespace agentsim::serving {

namespace {

// Kernel launches per layer of each op, indexed by StepCoster::Op (step_cost.cpp's table).
constexpr std::array<double, 11> kKernelsPerLayer = {4, 1, 2, 2, 2, 2, 4, 3, 1, 1, 2};

// The collective kinds as CollectivePricer names them (built once: no per-step strings).
const std::string& kind_name(int i) {
  static const std::array<std::string, 4> k = {"all_reduce", "all_to_all_dispatch", "all_to_all_combine", "send_recv"};
  return k[static_cast<std::size_t>(i)];
}
enum CollKind { kAllReduce, kDispatch, kCombine, kSendRecv };

// LayerKind::name() into a fixed buffer, for ordering kinds without allocating.
struct KindName {
  std::array<char, 64> buf{};
  std::size_t len = 0;
  void add(std::string_view s) {
    const std::size_t n = std::min(s.size(), buf.size() - len);
    std::copy_n(s.data(), n, buf.data() + len);
    len += n;
  }
  std::string_view view() const { return {buf.data(), len}; }
};
KindName kind_name_of(wl::LayerAttention a, bool moe, bool prefill) {
  KindName k;
  k.add(wl::to_string(a));
  k.add(moe ? "/moe" : "/dense");
  if (!prefill) k.add(" (decode only)");
  return k;
}

}  // namespace

StepCoster::StepCoster(const wl::ModelSpec& model, const hw::System& system, StepCostOptions opt)
    : opt_(std::move(opt)), tables_(model, system, opt_) {}

StepCost StepCoster::totals_once(const StepBatch& batch, const wl::ModelSpec& model, const hw::System& system,
                                 const StepCostOptions& opt) {
  if (batch.empty()) return StepCost{};
  return Tables(model, system, opt).totals(batch, opt);
}

StepCoster::View StepCoster::View::part(int parts, int index) const {
  // split(): decode i goes to part i % parts, prefill j to part (j + decodes) % parts.
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

StepCoster::Kind::Kind(const wl::ModelSpec& m, const wl::LayerKind& k, double pp)
    : attention(k.attention),
      moe(k.moe),
      prefill(k.prefill),
      n(k.count / pp),
      attention_params(k.attention_params),
      indexer_params(k.indexer_params),
      dense_ffn_params(k.dense_ffn_params),
      routed_expert_params(k.routed_expert_params),
      shared_expert_params(k.shared_expert_params),
      router_params(k.router_params),
      latent_proj_params(k.latent_proj_params),
      prefill_attention(m, k.attention, wl::Phase::kPrefill),
      decode_attention(m, k.attention, wl::Phase::kDecode) {}

StepCoster::Tables::Tables(const wl::ModelSpec& model, const hw::System& system, const StepCostOptions& opt)
    : model_(&model), system_(&system), plan_(opt.plan) {
  const ConstantKernelEfficiency constant(opt.efficiency);
  const KernelEfficiency& eff = opt.kernels ? *opt.kernels : static_cast<const KernelEfficiency&>(constant);
  const double lf = eff.launch_floor_s(opt.cuda_graph);
  floor_s_ = lf >= 0 ? lf : system.accelerator.launch_floor_s * (opt.cuda_graph ? opt.graph_floor_fraction : 1.0);
  for (const hw::MemoryTier& t : hw::memory_tiers(system)) {
    if (t.kind != hw::TierKind::kHostDram) continue;
    const int users = opt.host_link_users > 0 ? opt.host_link_users : plan_.devices();
    host_bw_Bps_ = hw::packed_per_gpu_bw_Bps(t, std::min(users, system.accelerators));
    host_latency_s_ = t.latency_s;
  }
  if (host_bw_Bps_ <= 0) host_bw_Bps_ = system.host.gpu_link_bw_Bps > 0 ? system.host.gpu_link_bw_Bps : 1e12;
  if (opt.host_kv_load_tokens > 0) {
    const wl::Footprint f = wl::footprint(model, plan_);
    host_kv_bytes_ = opt.host_kv_load_tokens * f.kv_bytes_per_token / plan_.pp / plan_.attn_dp;
  }

  const wl::PrecisionSpec& p = model.precision;
  h_ = model.hidden;
  ab_ = hw::bytes_per_element(p.activations);
  wb_ = wl::weight_bytes_per_element(p.weights, p.block_scale);
  eb_ = wl::weight_bytes_per_element(p.experts, p.block_scale);
  const double tp = plan_.tp;
  kv_split_ = model.attention.kind == wl::AttentionKind::kGqa ? std::min(tp, double(model.attention.kv_heads)) : 1.0;

  // The format the math runs in (step_cost.cpp's math_dtype): the op's own when
  // the accelerator has a peak for it, else the next wider one it has.
  const hw::Accelerator& acc = system.accelerator;
  const std::array<hw::DType, kSlots> from = {p.weights, p.experts, p.activations, hw::DType::kFp8};
  static constexpr std::array kOrder = {hw::DType::kFp4, hw::DType::kFp8, hw::DType::kBf16, hw::DType::kFp32};
  for (std::size_t s = 0; s < from.size(); ++s) {
    math_[s] = from[s];
    bool started = false;
    for (hw::DType x : kOrder) {
      if (x == from[s]) started = true;
      if (started && acc.peak_flops.count(x)) {
        math_[s] = x;
        break;
      }
    }
    const auto it = acc.peak_flops.find(math_[s]);
    peak_[s] = it == acc.peak_flops.end() ? 0.0 : it->second;
  }

  const double pp = plan_.pp;
  const std::vector<wl::LayerKind> stack = wl::layer_stack(model);
  if (stack.size() > kMaxKinds) throw core::Error("step coster: more than 64 layer kinds");
  kinds_.reserve(stack.size());
  for (const wl::LayerKind& k : stack) kinds_.emplace_back(model, k, pp);
  // price() sums the layers of the kinds in name order (as a map over the names
  // would); few kinds: an insertion sort, no buffer.
  for (std::size_t i = 0; i < kinds_.size(); ++i) {
    const Kind& x = kinds_[i];
    const KindName name = kind_name_of(x.attention, x.moe, x.prefill);
    std::size_t j = i;
    for (; j > 0; --j) {
      const Kind& y = kinds_[name_order_[j - 1]];
      if (!(name.view() < kind_name_of(y.attention, y.moe, y.prefill).view())) break;
      name_order_[j] = name_order_[j - 1];
    }
    name_order_[j] = static_cast<std::uint8_t>(i);
  }
}

StepCoster::Priced StepCoster::Tables::price(const View& v, const StepCostOptions& opt, bool spec, bool draft,
                                             int micro) const {
  Priced r;
  const wl::ModelSpec& m = *model_;
  const hw::Accelerator& acc = system_->accelerator;
  const KernelEfficiency* eff = opt.kernels.get();  // null: the constant opt.efficiency
  const double h = h_, ab = ab_;

  // The batch shape (to_shape): the prefill chunks, then with speculative
  // decoding one k + 1 token chunk per decode; else the decode contexts.
  const double verify_tokens = static_cast<double>(opt.spec.draft_tokens + 1);
  const std::size_t n_prefill = v.pre_count + (spec ? v.dec_count : 0);
  const std::size_t n_decode = spec ? 0 : v.dec_count;
  auto chunk = [&](std::size_t i) -> wl::PrefillChunk {
    if (i < v.pre_count) {
      const PrefillChunk& c = v.chunk(i);
      return {static_cast<double>(c.tokens), static_cast<double>(c.cached_tokens), c.completes_prompt};
    }
    return {verify_tokens, static_cast<double>(v.context(i - v.pre_count)), true, true};
  };

  // price(): LM head scale and the step's token counts.
  double sampled_plain = 0;
  for (std::size_t i = 0; i < v.pre_count; ++i) sampled_plain += v.chunk(i).completes_prompt ? 1 : 0;
  if (spec) {
    for (std::size_t i = 0; i < v.dec_count; ++i) sampled_plain += 1;
  }
  sampled_plain += static_cast<double>(n_decode);
  const double sampled_spec =
      sampled_plain + (spec ? static_cast<double>(v.dec_count * static_cast<std::size_t>(opt.spec.draft_tokens)) : 0);
  const double lm_scale = sampled_plain > 0 ? sampled_spec / sampled_plain : 1.0;
  double prefill_tokens = 0, output_chunk_tokens = 0;
  for (std::size_t i = 0; i < n_prefill; ++i) prefill_tokens += chunk(i).new_tokens;
  for (std::size_t i = v.pre_count; i < n_prefill; ++i) output_chunk_tokens += chunk(i).new_tokens;
  const double decode_seqs = static_cast<double>(n_decode);
  double ctx_sum = 0;
  for (std::size_t i = 0; i < n_decode; ++i) ctx_sum += static_cast<double>(v.context(i));
  const double all_tokens = prefill_tokens + decode_seqs;
  const double sampled = sampled_plain;  // batch_work's count

  auto op = [&](Op id, double layers, Slot slot, double flops, double wr, double kvr, double kvw, double actr,
                double actw, double hostr) {
    if (id == Op::kLmHead && lm_scale != 1.0) {
      flops *= lm_scale;
      actw *= lm_scale;
    }
    r.flops += flops;
    r.weight_bytes += wr;
    r.kv_read_bytes += kvr;
    r.kv_write_bytes += kvw;
    r.host_read_bytes += hostr;
    const double kv_bytes = kvr + kvw;
    const double act_bytes = actr + actw;
    const double L = std::max(1.0, layers);
    const double kernels = L * kKernelsPerLayer[static_cast<std::size_t>(id)];
    const hw::DType dt = math_[slot];
    const double bytes = wr + kv_bytes + act_bytes;
    double e_compute = opt.efficiency.compute, e_memory = opt.efficiency.memory;
    if (eff != nullptr) {
      KernelShape ks;
      ks.dtype = dt;
      ks.flops = flops / L;
      ks.bytes = (wr + kv_bytes + act_bytes) / L;
      const double tokens = actr > 0 ? actr / (L * h * ab) : all_tokens;
      if (id == Op::kRoutedExperts) {
        const double touched = std::max(1.0, wl::expected_distinct_experts(m.ffn.experts, m.ffn.top_k, tokens *
                                                                           plan_.devices_per_stage() / m.ffn.top_k));
        ks.kind = KernelKind::kGroupedGemm;
        ks.groups = touched / plan_.ep;
        ks.m = std::max(1.0, tokens * plan_.devices_per_stage() / touched);
        ks.k = h;
        ks.n = std::max(1.0, wr / L / std::max(1.0, ks.groups) / h);
      } else if (id == Op::kAttnCore) {
        ks.kind = decode_seqs > 0 && n_prefill == 0 ? KernelKind::kAttentionDecode : KernelKind::kAttentionPrefill;
        ks.batch = std::max(1.0, decode_seqs + static_cast<double>(n_prefill)) / plan_.attn_dp;
        ks.context = decode_seqs > 0 ? std::max(1.0, ctx_sum / decode_seqs) : std::max(1.0, all_tokens);
      } else if (wr > 0 && flops > 0) {
        ks.kind = KernelKind::kGemm;
        ks.m = std::max(1.0, tokens);
        ks.k = h;
        ks.n = std::max(1.0, flops / (2.0 * ks.m * h * L));
      } else {
        ks.kind = KernelKind::kOther;
      }
      if (flops > 0) e_compute = eff->compute(ks).value;
      if (bytes > 0) e_memory = eff->memory(ks).value;
    }
    double compute_s = 0, memory_s = 0, host_s = 0;
    if (flops > 0) compute_s = flops / ((peak_[slot] > 0 ? peak_[slot] : acc.peak_flops_for(dt)) * e_compute);
    if (bytes > 0) memory_s = bytes / (acc.hbm_bw_Bps * e_memory);
    if (id == Op::kRoutedExperts && plan_.ep > 1) {
      compute_s *= opt.ep_imbalance;
      memory_s *= opt.ep_imbalance;
    }
    const double floor_s = kernels * floor_s_;
    if (hostr > 0) host_s = hostr / host_bw_Bps_ + host_latency_s_;
    const double time_s = std::max({compute_s, memory_s, floor_s});
    r.roof_s += time_s;
    r.compute_s += compute_s;
    r.memory_s += memory_s;
    if (id == Op::kEngram) {
      r.engram_host_s += host_s;
      r.engram_host_bytes += hostr;
    } else {
      r.host_s += host_s;
    }
    if (layers > 0) r.layer_ops_s += time_s;
    if (id == Op::kLmHead) r.lm_head_s += time_s;
  };

  auto collective = [&](CollKind kind, int group, double count, double payload) {
    if (draft) return;
    double latency_s = 0, transfer_s = 0;
    if (opt.collectives) {
      const hw::CollectiveCost cc = opt.collectives->price(kind_name(kind), payload);
      latency_s = cc.latency_s;
      transfer_s = cc.transfer_s;
    } else {
      // step_cost.cpp's closed_form: ring all-reduce, p2p send/recv, direct all-to-all.
      const double bw = system_->scale_up_bw_Bps, lat = system_->scale_up_latency_s;
      if (kind == kAllReduce) {
        const hw::CollectiveTime t = hw::ring_all_reduce(payload, group, bw, lat);
        latency_s = t.latency_s;
        transfer_s = t.transfer_s;
      } else if (kind == kSendRecv) {
        latency_s = lat;
        transfer_s = payload / bw;
      } else {
        const double n = group;
        latency_s = lat;
        transfer_s = payload * (n - 1) / n / bw;
      }
    }
    double transfer = transfer_s / opt.efficiency.network;
    if ((kind == kDispatch || kind == kCombine) && plan_.ep > 1) transfer *= opt.ep_imbalance;
    r.alpha_s += count * latency_s;
    r.beta_s += count * transfer;
    if (kind == kAllReduce) {
      r.allreduces += static_cast<int>(count * micro + 0.5);
      r.allreduce_bytes = std::max(r.allreduce_bytes, payload);
    }
  };

  std::uint64_t present = 0;  // kinds that ran (their layers count)
  if (all_tokens > 0) {
    const double wb = wb_, eb = eb_;
    const double tp = plan_.tp, dp = plan_.attn_dp, pp = plan_.pp, stage = plan_.devices_per_stage();
    const double kv_split = kv_split_;
    const double decode_tokens = static_cast<double>(n_decode);
    // Kinds sharing an attention variant and phase see the same attention work: computed once.
    struct SharedAttention {
      wl::LayerAttention attention;
      bool prefill;
      wl::AttentionCost cost;
    };
    std::array<SharedAttention, 16> shared{};
    std::size_t n_shared = 0;

    for (std::size_t ki = 0; ki < kinds_.size(); ++ki) {
      const Kind& k = kinds_[ki];
      const double n = k.n;
      const double tokens = (k.prefill ? prefill_tokens : output_chunk_tokens) + decode_tokens;
      if (tokens <= 0) continue;
      present |= std::uint64_t{1} << ki;
      const double dev_tokens = tokens / dp;
      auto matmul = [&](Op id, double params, double bytes_per_weight, Slot slot, double split) {
        op(id, n, slot, n * 2.0 * params * dev_tokens / split, n * params * bytes_per_weight / split, 0, 0,
           n * dev_tokens * h * ab, n * dev_tokens * h * ab, 0);
      };

      matmul(Op::kAttnProj, k.attention_params, wb, kWeights, tp);

      wl::AttentionCost att;
      std::size_t si = 0;
      while (si < n_shared && !(shared[si].attention == k.attention && shared[si].prefill == k.prefill)) ++si;
      if (si < n_shared) {
        att = shared[si].cost;
      } else {
        for (std::size_t i = 0; i < n_prefill; ++i) {
          if (!k.prefill && i < v.pre_count) continue;  // verified output chunks run every layer
          const wl::AttentionCost x = wl::chunk_attention(k.prefill_attention, chunk(i));
          att.core_flops += x.core_flops;
          att.indexer_flops += x.indexer_flops;
          att.kv_read_bytes += x.kv_read_bytes;
          att.kv_write_bytes += x.kv_write_bytes;
        }
        const wl::PreparedAttention& decode = k.decode_attention;
        for (std::size_t i = 0; i < n_decode; ++i) {
          const wl::AttentionCost x = decode.at(static_cast<double>(v.context(i)));
          att.core_flops += x.core_flops;
          att.indexer_flops += x.indexer_flops;
          att.kv_read_bytes += x.kv_read_bytes;
          att.kv_write_bytes += x.kv_write_bytes;
        }
        if (n_shared < shared.size()) shared[n_shared++] = {k.attention, k.prefill, att};
      }
      op(Op::kAttnCore, n, kActivations, n * att.core_flops / (dp * tp), 0, n * att.kv_read_bytes / (dp * kv_split),
         n * att.kv_write_bytes / (dp * kv_split), 0, 0, 0);
      if (att.indexer_flops > 0) {
        double flops = n * att.indexer_flops / dp;
        const double weight = n * k.indexer_params * wb;
        flops += n * 2.0 * k.indexer_params * dev_tokens;
        op(Op::kIndexer, n, kFp8, flops, weight, 0, 0, 0, 0, 0);
      }

      if (k.moe) {
        const wl::FfnSpec& f = m.ffn;
        op(Op::kRouter, n, kActivations, n * 2.0 * k.router_params * dev_tokens, n * k.router_params * ab, 0, 0, 0, 0,
           0);
        if (k.shared_expert_params > 0) matmul(Op::kSharedExperts, k.shared_expert_params, wb, kWeights, tp);
        if (k.latent_proj_params > 0) matmul(Op::kLatentProj, k.latent_proj_params, wb, kWeights, tp);
        const double e_flops = n * 2.0 * k.routed_expert_params * f.top_k * tokens / stage;
        const double touched = wl::expected_distinct_experts(f.experts, f.top_k, tokens);
        const double e_weight = n * touched * k.routed_expert_params * eb / stage;
        const double e_act = n * tokens * f.top_k * h * ab / stage;
        op(Op::kRoutedExperts, n, kExperts, e_flops, e_weight, 0, 0, e_act, e_act, 0);
      } else {
        matmul(Op::kDenseFfn, k.dense_ffn_params, wb, kWeights, tp);
      }

      if (tp > 1) {
        collective(kAllReduce, plan_.tp, n, dev_tokens * h * ab);
        collective(kAllReduce, plan_.tp, n, dev_tokens * h * ab);
      }
      if (k.moe && plan_.ep > 1) {
        const double payload = tokens / stage * m.ffn.top_k * h * ab;
        collective(kDispatch, plan_.ep, n, payload);
        collective(kCombine, plan_.ep, n, payload);
      }
    }

    // Once per step (batch_work: averaged over stages).
    {
      const double weight = all_tokens / dp * h * ab / pp;
      op(Op::kEmbedding, 0, kActivations, 0, weight, 0, 0, 0, weight, 0);
    }
    if (m.engram.table_bytes > 0) {
      const double bytes =
          all_tokens / dp * m.engram.rows_per_token * (m.engram.row_bytes + m.engram.scale_bytes_per_row) / pp;
      if (plan_.engram_on_host) op(Op::kEngram, 0, kActivations, 0, 0, 0, 0, 0, 0, bytes);
      else op(Op::kEngram, 0, kActivations, 0, bytes, 0, 0, 0, 0, 0);
    }
    {
      const double head = static_cast<double>(m.vocab) * h;
      op(Op::kLmHead, 0, kActivations, 2.0 * head * sampled / (dp * tp * pp), head * ab / (tp * pp), 0, 0, 0,
         sampled / dp * m.vocab * 4.0 / (tp * pp), 0);
    }
    if (pp > 1) {
      const double streams = m.hc_mult > 0 ? m.hc_mult : 1;
      collective(kSendRecv, 2, (pp - 1) / pp, all_tokens / dp * streams * h * ab);
    }
  }

  for (std::size_t o = 0; o < kinds_.size(); ++o) {
    const std::size_t i = name_order_[o];
    if (present & (std::uint64_t{1} << i)) r.layers += kinds_[i].n;
  }
  if (!draft && opt.host_kv_load_tokens > 0) {
    r.host_s += host_kv_bytes_ / host_bw_Bps_ + std::max(1.0, r.layers) * host_latency_s_;  // layer by layer
  }
  return r;
}

StepCost StepCoster::Tables::totals(const StepBatch& batch, const StepCostOptions& opt) const {
  StepCost c;
  if (batch.empty()) return c;
  StepBreakdown& bd = c.breakdown;
  const bool pipelined = plan_.pp > 1;
  const int micro = pipelined ? std::max(1, opt.micro_batches) : 1;
  View whole;
  whole.dec = batch.decodes.data();
  whole.dec_count = batch.decodes.size();
  whole.pre = batch.prefills.data();
  whole.pre_count = batch.prefills.size();
  const View mb = micro > 1 ? whole.part(micro, 0) : whole;
  const bool tbo = opt.overlap == Overlap::kTwoBatch && mb.dec_count + mb.pre_count >= 2;
  const bool spec = opt.spec.enabled();

  std::array<Priced, 2> parts{};
  const std::size_t n_parts = tbo ? 2 : 1;
  if (tbo) {
    parts[0] = price(mb.part(2, 0), opt, spec, false, micro);
    parts[1] = price(mb.part(2, 1), opt, spec, false, micro);
  } else {
    parts[0] = price(mb, opt, spec, false, micro);
  }
  double roof = 0, comp = 0, mem = 0, alpha = 0, beta = 0, host = 0, layers = 0;
  for (std::size_t i = 0; i < n_parts; ++i) {
    const Priced& p = parts[i];
    roof += p.roof_s;
    comp += p.compute_s;
    mem += p.memory_s;
    alpha += p.alpha_s;
    beta += p.beta_s;
    // host_exposed(): prefetched loads hide behind the ops except the first layer's share.
    if (p.host_s > 0) {
      host += !opt.host_prefetch ? p.host_s : std::max(p.host_s - p.roof_s, p.host_s / std::max(1.0, p.layers));
    }
    // engram_exposed()
    if (p.engram_host_bytes > 0) {
      const double layer_s = p.layers > 0 ? p.layer_ops_s / p.layers : 0.0;
      host += engram_host_exposed_s(p.engram_host_bytes, host_bw_Bps_, host_latency_s_, model_->engram.layers, layer_s,
                                    opt.engram_prefetch);
    }
    layers = std::max(layers, p.layers);
  }
  const CommExposure exposed = comm_exposure(opt.overlap, tbo, roof, alpha, beta, layers);
  const double exposed_alpha = exposed.alpha_s, exposed_beta = exposed.beta_s;
  bd.exposed_comm_s = micro * (exposed_alpha + exposed_beta);
  bd.hidden_comm_s = micro * (alpha + beta) - bd.exposed_comm_s;
  bd.micro_batch_s = roof + exposed_alpha + exposed_beta + host;
  bd.bubble_s = pipelined ? (plan_.pp - 1) * bd.micro_batch_s : 0.0;

  if (spec && !batch.decodes.empty()) {
    View dec = whole;
    dec.pre_count = 0;
    const Priced d = price(dec, opt, false, true, micro);
    const double per_layer = d.layers > 0 ? d.layer_ops_s / d.layers : 0.0;
    bd.draft_s = opt.spec.draft_tokens * (opt.spec.draft_layers * per_layer * plan_.pp + d.lm_head_s);
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
  return c;
}

}  // namespace agentsim::serving
