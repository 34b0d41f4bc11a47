#include "workloads/model/batch_work.hpp"

#include <algorithm>

#include "workloads/model/step_work.hpp"

namespace agentsim::wl {

namespace {

template <class Part>
double sum_ops(const std::vector<OpWork>& ops, Part part) {
  double s = 0;
  for (const OpWork& o : ops) s += part(o);
  return s;
}

}  // namespace

double BatchWork::flops() const { return sum_ops(ops, [](const OpWork& o) { return o.flops; }); }
std::map<hw::DType, double> BatchWork::flops_by_dtype() const {
  std::map<hw::DType, double> by;
  for (const OpWork& o : ops) by[o.dtype] += o.flops;
  return by;
}
double BatchWork::weight_read_bytes() const { return sum_ops(ops, [](const OpWork& o) { return o.weight_read_bytes; }); }
double BatchWork::kv_read_bytes() const { return sum_ops(ops, [](const OpWork& o) { return o.kv_read_bytes; }); }
double BatchWork::kv_write_bytes() const { return sum_ops(ops, [](const OpWork& o) { return o.kv_write_bytes; }); }
double BatchWork::act_bytes() const {
  return sum_ops(ops, [](const OpWork& o) { return o.act_read_bytes + o.act_write_bytes; });
}
double BatchWork::host_read_bytes() const { return sum_ops(ops, [](const OpWork& o) { return o.host_read_bytes; }); }
double BatchWork::collective_bytes() const {
  double s = 0;
  for (const CollectiveWork& c : collectives) s += c.count * c.payload_bytes;
  return s;
}

// Up to 16 slices, each priced at its mean context, is exact for work linear
// in context and close under top-k/window caps.
AttentionCost chunk_attention(const PreparedAttention& a, const PrefillShape& c) {
  AttentionCost sum;
  const double slices = std::min(16.0, std::max(1.0, c.new_tokens));
  const double per = c.new_tokens / slices;
  // One query per slice at an integer offset (a verify chunk): slice s sits at cached + s + 1,
  // and the closed form, where it applies, is the loop's sum to the bit.
  const bool consecutive = per == 1.0 && c.cached_tokens >= 0 && c.cached_tokens < 1e12 &&
                           c.cached_tokens == static_cast<double>(static_cast<long long>(c.cached_tokens));
  if (!consecutive || !a.consecutive_sum(static_cast<long long>(c.cached_tokens) + 1, static_cast<long long>(slices), sum)) {
    for (int s = 0; s < static_cast<int>(slices); ++s) {
      const double ctx = c.cached_tokens + per * s + (per + 1.0) / 2.0;
      const AttentionCost x = a.at(ctx);
      sum.core_flops += per * x.core_flops;
      sum.indexer_flops += per * x.indexer_flops;
      sum.kv_read_bytes += per * x.kv_read_bytes;
      sum.kv_write_bytes += per * x.kv_write_bytes;
    }
  }
  // A chunk streams each cached entry once (tiled attention), however many of
  // its queries attend to it.
  const double end = c.cached_tokens + c.new_tokens;
  sum.kv_read_bytes = std::min(sum.kv_read_bytes, a.whole_bytes(end));
  return sum;
}

namespace {

// A BatchShape as StepWork visits it.
struct ShapeBatch {
  const BatchShape& s;
  std::size_t prefill_count() const { return s.prefill.size(); }
  const PrefillShape& chunk(std::size_t i) const { return s.prefill[i]; }
  std::size_t decode_count() const { return s.decode_contexts.size(); }
  double context(std::size_t i) const { return s.decode_contexts[i]; }
};

// Records what StepWork visits as rows.
struct Recorder {
  const StepWork& work;
  BatchWork& w;
  void begin(const StepTokens&) {}
  void op(std::size_t kind, Op id, double layers, Format f, const OpAmounts& a) {
    w.ops.push_back({work.kind_name(kind), std::string(to_string(id)), layers, work.dtype(f), a.flops, a.weight_read,
                     a.kv_read, a.kv_write, a.act_read, a.act_write, a.host_read});
  }
  void collective(std::size_t kind, CollectiveOp c, std::string_view where, int group, double count, double payload) {
    const std::string place = kind == StepWork::kModel ? std::string(where) : work.kind_name(kind) + std::string(where);
    w.collectives.push_back({std::string(to_string(c)), place, group, count, payload});
  }
};

}  // namespace

BatchWork batch_work(const ModelSpec& m, const ParallelPlan& plan, const BatchShape& batch) {
  BatchWork w;
  const StepWork work(m, plan);
  Recorder r{work, w};
  work.visit(ShapeBatch{batch}, r);
  return w;
}

}  // namespace agentsim::wl
