#include "workloads/model/step_work.hpp"

#include <algorithm>
#include <cstddef>
#include <functional>
#include <unordered_map>

#include "sim/core/error.hpp"
#include "workloads/model/layer_stack.hpp"

namespace agentsim::wl {

StepWork::Kind::Kind(const ModelSpec& m, const LayerKind& k, double pp)
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
      prefill_attention(m, k.attention, Phase::kPrefill),
      decode_attention(m, k.attention, Phase::kDecode),
      name(k.name()) {}

double dispatch_bytes_per_element(const PrecisionSpec& p) {
  // DeepEP README, "Performance" (github.com/deepseek-ai/DeepEP): normal and low-latency kernels
  // benchmarked with FP8 dispatching (x in FP8, a float32 scale per 128 channels) and BF16 combining.
  constexpr double kScaleBytesPerElement = 4.0 / 128.0;
  if (p.experts == hw::DType::kFp8) return 1.0 + kScaleBytesPerElement;
  return hw::bytes_per_element(p.activations);
}

StepWork::StepWork(const ModelSpec& m, const ParallelPlan& plan) : model_(&m), plan_(plan) {
  const PrecisionSpec& p = m.precision;
  h_ = m.hidden;
  ab_ = hw::bytes_per_element(p.activations);
  wb_ = bytes_per_weight(p.weights_format());
  eb_ = bytes_per_weight(p.experts_format());
  dispatch_bytes_ = dispatch_bytes_per_element(p);
  const double tp = plan_.tp;
  kv_split_ = m.attention.kind == AttentionKind::kGqa ? std::min(tp, double(m.attention.kv_heads)) : 1.0;
  dtype_ = {p.weights, p.experts, p.activations, hw::DType::kFp8};

  const std::vector<LayerKind> stack = layer_stack(m);
  if (stack.size() > kMaxKinds) throw core::Error("step work: more than 64 layer kinds");
  kinds_.reserve(stack.size());
  for (const LayerKind& k : stack) kinds_.emplace_back(m, k, static_cast<double>(plan_.pp));
  int slots = 0;
  for (std::size_t i = 0; i < kinds_.size(); ++i) {
    Kind& k = kinds_[i];
    if (k.load_slot >= 0 || k.save_slot >= 0) continue;
    for (std::size_t j = i + 1; j < kinds_.size(); ++j) {
      Kind& later = kinds_[j];
      if (later.attention != k.attention || later.prefill != k.prefill) continue;
      if (k.save_slot < 0) {
        if (slots == static_cast<int>(kMaxSharedAttention)) break;
        k.save_slot = slots++;
      }
      later.load_slot = k.save_slot;
    }
  }
  for (std::size_t n = 0; n < routed_.size(); ++n) routed_[n] = routed_load(static_cast<double>(n));
  for (const Kind& k : kinds_) k.decode_attention.append_kinks(decode_kinks_);
  std::sort(decode_kinks_.begin(), decode_kinks_.end());
  decode_kinks_.erase(std::unique(decode_kinks_.begin(), decode_kinks_.end()), decode_kinks_.end());
  for (Kind& k : kinds_) {
    const long long cap = k.decode_attention.decode_cap();
    if (cap < 0) continue;
    std::size_t j = 0;
    while (j < n_caps_ && caps_[j] != cap) ++j;
    if (j == kMaxCaps) {  // no slot left: summed one by one
      k.sum_exact = false;
      continue;
    }
    if (j == n_caps_) caps_[n_caps_++] = cap;
    k.cap_slot = static_cast<int>(j);
  }
  // layers() sums in name order (as a map over the names would); few kinds: an insertion sort.
  for (std::size_t i = 0; i < kinds_.size(); ++i) {
    std::size_t j = i;
    for (; j > 0 && kinds_[i].name < kinds_[name_order_[j - 1]].name; --j) name_order_[j] = name_order_[j - 1];
    name_order_[j] = static_cast<std::uint8_t>(i);
  }
}

double StepWork::layers(std::uint64_t present) const {
  double sum = 0;
  for (std::size_t o = 0; o < kinds_.size(); ++o) {
    const std::size_t i = name_order_[o];
    if (present & (std::uint64_t{1} << i)) sum += kinds_[i].n;
  }
  return sum;
}

const std::string& StepWork::kind_name(std::size_t kind) const {
  static const std::string model = "model";
  return kind < kinds_.size() ? kinds_[kind].name : model;
}

StepWork::RoutedLoad StepWork::routed_load(double tokens) const {
  const FfnSpec& f = model_->ffn;
  const int ranks = plan_.ep;
  // A pure function of (experts, top-k, ranks, redundant, load skew, tokens) whose expert-parallel
  // expectations cost up to ~1,000 libm calls: every thread keeps what it computed (every replica's
  // StepWork tables the same 0..511 tokens; prefill steps repeat their token counts), a bounded
  // map, dropped when full.
  struct Key {
    int experts, top_k, ranks, redundant;
    double load_cv, balanced_cv, tokens;
    bool operator==(const Key&) const = default;
  };
  struct Hash {
    std::size_t operator()(const Key& k) const {
      std::size_t h = std::hash<double>{}(k.tokens);
      for (double x : {k.load_cv, k.balanced_cv}) h = h * 1000003U ^ std::hash<double>{}(x);
      for (int x : {k.experts, k.top_k, k.ranks, k.redundant}) h = h * 1000003U ^ static_cast<std::size_t>(x);
      return h;
    }
  };
  thread_local std::unordered_map<Key, RoutedLoad, Hash> known;
  const int redundant = plan_.redundant_for(f.experts);
  const Key key{f.experts, f.top_k, ranks, redundant, f.expert_load_cv, f.expert_load_cv_balanced, tokens};
  if (ranks > 1) {
    if (const auto it = known.find(key); it != known.end()) return it->second;
  }
  RoutedLoad r;
  r.touched = expected_distinct_experts(f.experts, f.top_k, tokens);
  if (ranks <= 1 || r.touched <= 0) return r;
  r.weight_factor = std::max(1.0, expected_busiest_rank_experts(f.experts, f.top_k, tokens, ranks, redundant) * ranks /
                                           r.touched);
  // Routing's sampling spread or the experts' own popularity, whichever loads the busiest rank more.
  r.token_factor = std::max({1.0, expected_busiest_rank_assignments(f.top_k, tokens, ranks) * ranks / (f.top_k * tokens),
                             expected_busiest_rank_skew(f.experts, ranks, redundant, f.expert_load_cv,
                                                        f.expert_load_cv_balanced)});
  if (known.size() >= (std::size_t{1} << 16)) known.clear();
  known.emplace(key, r);
  return r;
}

}  // namespace agentsim::wl
