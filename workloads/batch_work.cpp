#include "workloads/batch_work.hpp"

#include <algorithm>

#include "workloads/attention_cost.hpp"
#include "workloads/layer_stack.hpp"
#include "workloads/moe_expectation.hpp"

namespace agentsim::wl {

double BatchWork::flops() const {
  double s = 0;
  for (const OpWork& o : ops) s += o.flops;
  return s;
}
std::map<hw::DType, double> BatchWork::flops_by_dtype() const {
  std::map<hw::DType, double> by;
  for (const OpWork& o : ops) by[o.dtype] += o.flops;
  return by;
}
double BatchWork::weight_read_bytes() const {
  double s = 0;
  for (const OpWork& o : ops) s += o.weight_read_bytes;
  return s;
}
double BatchWork::kv_read_bytes() const {
  double s = 0;
  for (const OpWork& o : ops) s += o.kv_read_bytes;
  return s;
}
double BatchWork::kv_write_bytes() const {
  double s = 0;
  for (const OpWork& o : ops) s += o.kv_write_bytes;
  return s;
}
double BatchWork::act_bytes() const {
  double s = 0;
  for (const OpWork& o : ops) s += o.act_read_bytes + o.act_write_bytes;
  return s;
}
double BatchWork::host_read_bytes() const {
  double s = 0;
  for (const OpWork& o : ops) s += o.host_read_bytes;
  return s;
}
double BatchWork::collective_bytes() const {
  double s = 0;
  for (const CollectiveWork& c : collectives) s += c.count * c.payload_bytes;
  return s;
}

// Up to 16 slices, each priced at its mean context, is exact for work linear
// in context and close under top-k/window caps.
AttentionCost chunk_attention(const PreparedAttention& a, const PrefillChunk& c) {
  AttentionCost sum;
  const double slices = std::min(16.0, std::max(1.0, c.new_tokens));
  const double per = c.new_tokens / slices;
  for (int s = 0; s < static_cast<int>(slices); ++s) {
    const double ctx = c.cached_tokens + per * s + (per + 1.0) / 2.0;
    const AttentionCost x = a.at(ctx);
    sum.core_flops += per * x.core_flops;
    sum.indexer_flops += per * x.indexer_flops;
    sum.kv_read_bytes += per * x.kv_read_bytes;
    sum.kv_write_bytes += per * x.kv_write_bytes;
  }
  // A chunk streams each cached entry once (tiled attention), however many of
  // its queries attend to it.
  const double end = c.cached_tokens + c.new_tokens;
  sum.kv_read_bytes = std::min(sum.kv_read_bytes, a.whole_bytes(end));
  return sum;
}

AttentionCost chunk_attention(const ModelSpec& m, LayerAttention a, const PrefillChunk& c) {
  return chunk_attention(PreparedAttention(m, a, Phase::kPrefill), c);
}

BatchWork batch_work(const ModelSpec& m, const ParallelPlan& plan, const BatchShape& batch) {
  BatchWork w;
  const PrecisionSpec& p = m.precision;
  const double wb = weight_bytes_per_element(p.weights, p.block_scale);
  const double eb = weight_bytes_per_element(p.experts, p.block_scale);
  const double ab = hw::bytes_per_element(p.activations);
  const double h = m.hidden;
  const double tp = plan.tp, dp = plan.attn_dp, pp = plan.pp, stage = plan.devices_per_stage();
  const double kv_split = m.attention.kind == AttentionKind::kGqa ? std::min(tp, double(m.attention.kv_heads)) : 1.0;

  double prefill_tokens = 0, sampled = 0, output_chunk_tokens = 0;
  for (const PrefillChunk& c : batch.prefill) {
    prefill_tokens += c.new_tokens;
    if (c.samples) sampled += 1;
  }
  for (const PrefillChunk& c : batch.prefill) {
    if (c.output) output_chunk_tokens += c.new_tokens;
  }
  const double decode_tokens = static_cast<double>(batch.decode_contexts.size());
  sampled += decode_tokens;
  const double all_tokens = prefill_tokens + decode_tokens;
  if (all_tokens <= 0) return w;

  for (const LayerKind& k : layer_stack(m)) {
    const double n = k.count / pp;
    // Layers prompt tokens skip (phase_asymmetric) still run verified output tokens.
    const double tokens = (k.prefill ? prefill_tokens : output_chunk_tokens) + decode_tokens;
    if (tokens <= 0) continue;
    const double dev_tokens = tokens / dp;  // tokens one attention-DP group handles
    const std::string kind = k.name();
    auto add = [&](std::string op, hw::DType dt) -> OpWork& {
      OpWork o;
      o.layer_kind = kind;
      o.op = std::move(op);
      o.layers = n;
      o.dtype = dt;
      w.ops.push_back(o);
      return w.ops.back();
    };
    auto matmul = [&](std::string op, double params, double bytes_per_weight, hw::DType dt, double split) {
      OpWork& o = add(std::move(op), dt);
      o.flops = n * 2.0 * params * dev_tokens / split;
      o.weight_read_bytes = n * params * bytes_per_weight / split;
      o.act_read_bytes = n * dev_tokens * h * ab;
      o.act_write_bytes = n * dev_tokens * h * ab;
    };

    matmul("attn_proj", k.attention_params, wb, p.weights, tp);

    AttentionCost att;
    for (const PrefillChunk& c : batch.prefill) {
      if (!k.prefill && !c.output) continue;
      const AttentionCost x = chunk_attention(m, k.attention, c);
      att.core_flops += x.core_flops;
      att.indexer_flops += x.indexer_flops;
      att.kv_read_bytes += x.kv_read_bytes;
      att.kv_write_bytes += x.kv_write_bytes;
    }
    for (double ctx : batch.decode_contexts) {
      const AttentionCost x = attention_cost(m, k.attention, ctx, Phase::kDecode);
      att.core_flops += x.core_flops;
      att.indexer_flops += x.indexer_flops;
      att.kv_read_bytes += x.kv_read_bytes;
      att.kv_write_bytes += x.kv_write_bytes;
    }
    {
      OpWork& o = add("attn_core", p.activations);
      o.flops = n * att.core_flops / (dp * tp);
      o.kv_read_bytes = n * att.kv_read_bytes / (dp * kv_split);
      o.kv_write_bytes = n * att.kv_write_bytes / (dp * kv_split);
    }
    if (att.indexer_flops > 0) {
      OpWork& o = add("indexer", hw::DType::kFp8);
      o.flops = n * att.indexer_flops / dp;
      o.weight_read_bytes = n * k.indexer_params * wb;
      o.flops += n * 2.0 * k.indexer_params * dev_tokens;
    }

    if (k.moe) {
      const FfnSpec& f = m.ffn;
      OpWork& r = add("router", p.activations);
      r.flops = n * 2.0 * k.router_params * dev_tokens;
      r.weight_read_bytes = n * k.router_params * ab;
      if (k.shared_expert_params > 0) matmul("shared_experts", k.shared_expert_params, wb, p.weights, tp);
      if (k.latent_proj_params > 0) matmul("latent_proj", k.latent_proj_params, wb, p.weights, tp);
      OpWork& e = add("routed_experts", p.experts);
      e.flops = n * 2.0 * k.routed_expert_params * f.top_k * tokens / stage;
      const double touched = expected_distinct_experts(f.experts, f.top_k, tokens);
      e.weight_read_bytes = n * touched * k.routed_expert_params * eb / stage;
      e.act_read_bytes = n * tokens * f.top_k * h * ab / stage;
      e.act_write_bytes = e.act_read_bytes;
    } else {
      matmul("dense_ffn", k.dense_ffn_params, wb, p.weights, tp);
    }

    if (tp > 1) {
      w.collectives.push_back({"all_reduce", kind + " attention output", plan.tp, n, dev_tokens * h * ab});
      w.collectives.push_back({"all_reduce", kind + " FFN output", plan.tp, n, dev_tokens * h * ab});
    }
    if (k.moe && plan.ep > 1) {
      const double payload = tokens / stage * m.ffn.top_k * h * ab;
      w.collectives.push_back({"all_to_all_dispatch", kind + " experts", plan.ep, n, payload});
      w.collectives.push_back({"all_to_all_combine", kind + " experts", plan.ep, n, payload});
    }
  }

  // Once per step (averaged over stages: the first stage embeds, the last samples).
  {
    OpWork o;
    o.layer_kind = "model";
    o.op = "embedding";
    o.dtype = p.activations;
    o.weight_read_bytes = all_tokens / dp * h * ab / pp;
    o.act_write_bytes = o.weight_read_bytes;
    w.ops.push_back(o);
  }
  if (m.engram.table_bytes > 0) {
    OpWork o;
    o.layer_kind = "model";
    o.op = "engram";
    o.dtype = p.activations;
    const double bytes = all_tokens / dp * m.engram.rows_per_token * (m.engram.row_bytes + m.engram.scale_bytes_per_row) / pp;
    if (plan.engram_on_host) o.host_read_bytes = bytes;
    else o.weight_read_bytes = bytes;
    w.ops.push_back(o);
  }
  {
    OpWork o;
    o.layer_kind = "model";
    o.op = "lm_head";
    o.dtype = p.activations;
    const double head = static_cast<double>(m.vocab) * h;
    o.flops = 2.0 * head * sampled / (dp * tp * pp);
    o.weight_read_bytes = head * ab / (tp * pp);
    o.act_write_bytes = sampled / dp * m.vocab * 4.0 / (tp * pp);  // FP32 logits
    w.ops.push_back(o);
  }
  if (pp > 1) {
    const double streams = m.hc_mult > 0 ? m.hc_mult : 1;
    w.collectives.push_back({"send_recv", "pipeline stage boundary", 2, (pp - 1) / pp, all_tokens / dp * streams * h * ab});
  }
  return w;
}

}  // namespace agentsim::wl
