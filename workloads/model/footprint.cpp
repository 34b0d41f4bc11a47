#include "workloads/model/footprint.hpp"

#include <algorithm>

#include "workloads/model/param_counts.hpp"

namespace agentsim::wl {

double Footprint::whole_weight_bytes() const {
  return sharded_weight_bytes * plan.tp * plan.pp + replicated_weight_bytes * plan.pp +
         expert_weight_bytes * plan.devices();
}

Footprint footprint(const ModelSpec& m, const ParallelPlan& plan) {
  Footprint f;
  f.plan = plan;
  const ParamCounts c = param_counts(m);
  const PrecisionSpec& p = m.precision;
  const double wb = bytes_per_weight(p.weights_format());
  const double eb = bytes_per_weight(p.experts_format());
  const double ab = hw::bytes_per_element(p.activations);
  const double tp = plan.tp, pp = plan.pp;
  // Same dtype rules as ModelSpec::weight_bytes().
  const double sharded = (c.attention + c.indexers + c.dense_ffn + c.shared_experts + c.latent_proj) * wb +
                         (c.embedding + c.lm_head) * ab;
  f.sharded_weight_bytes = sharded / (tp * pp);
  f.replicated_weight_bytes = (c.norms + c.routers) * ab / pp;
  f.expert_weight_bytes = c.routed_experts * eb / plan.devices();
  f.experts_per_device = static_cast<double>(m.ffn.experts) / plan.ep;
  // Redundant experts: each EP rank holds ceil((routed + redundant) / ep) expert slots.
  const int slots = plan.experts_per_rank(m.ffn.experts) * plan.ep;
  if (m.ffn.experts > 0 && slots != m.ffn.experts) {
    f.expert_weight_bytes *= static_cast<double>(slots) / m.ffn.experts;
    f.experts_per_device = plan.experts_per_rank(m.ffn.experts);
  }

  // GQA KV heads split over tp (copied when tp exceeds them); latent and
  // single-vector KV caches are whole on every tp rank.
  const double kv_split = m.attention.kind == AttentionKind::kGqa ? std::min(tp, double(m.attention.kv_heads)) : 1.0;
  f.kv_bytes_per_token = m.kv_bytes_per_token() / (kv_split * pp);

  const AttentionSpec& a = m.attention;
  const double h = m.hidden;
  const double q_width = a.kind == AttentionKind::kGqa ? double(a.heads) * a.head_dim
                         : a.kind == AttentionKind::kMla ? double(a.heads) * (a.qk_nope_head_dim + a.qk_rope_head_dim)
                                                         : double(a.heads) * a.head_dim;
  const double ffn_width = std::max<double>(
      m.ffn.dense_intermediate,
      double(m.ffn.top_k) * m.ffn.expert_intermediate +
          m.ffn.shared_experts * double(m.ffn.shared_expert_intermediate > 0 ? m.ffn.shared_expert_intermediate
                                                                             : m.ffn.expert_intermediate));
  const double streams = m.hc_mult > 0 ? m.hc_mult : 1;
  f.activation_bytes_per_token =
      ab * (streams * h + h + 2.0 * q_width / tp + 2.0 * ffn_width / tp) + 4.0 * m.vocab / tp;

  const EngramSpec& e = m.engram;
  if (e.table_bytes > 0) {
    if (plan.engram_on_host) {
      f.host_bytes = e.table_bytes_with_scales;
      f.host_read_bytes_per_token = e.rows_per_token * (e.row_bytes + e.scale_bytes_per_row);
    } else {
      f.engram_hbm_bytes = e.table_bytes_with_scales / plan.devices();
    }
  }
  return f;
}

}  // namespace agentsim::wl
