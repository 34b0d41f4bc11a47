#include "workloads/model/attention_cost.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace agentsim::wl {

namespace {

double kv_elem(const ModelSpec& m) { return hw::bytes_per_element(m.precision.kv_cache); }

double gqa_entry(const ModelSpec& m) {
  return 2.0 * m.attention.kv_heads * m.attention.head_dim * kv_elem(m);
}
double mla_entry(const ModelSpec& m) {
  return (m.attention.kv_lora_rank + m.attention.qk_rope_head_dim) * kv_elem(m);
}
// One DSA indexer key: the catalog's figure when given, else FP8 key + FP32 scale.
double indexer_entry(const ModelSpec& m) {
  const AttentionSpec& a = m.attention;
  if (m.kv_indexer_bytes_per_token > 0 && a.indexer_layers > 0) {
    return m.kv_indexer_bytes_per_token / a.indexer_layers;
  }
  if (m.kv_indexer_bytes_per_token > 0) return m.kv_indexer_bytes_per_token / m.layers;
  return a.indexer_head_dim * 1.0 + 4.0;
}
double v4_entry(const ModelSpec& m) { return m.attention.head_dim * kv_elem(m); }
double window(const ModelSpec& m, double ctx) {
  return std::min(ctx, static_cast<double>(m.attention.sliding_window));
}
double kda_state_bytes(const ModelSpec& m) {
  const double dk = m.attention.head_dim;
  return m.attention.heads * dk * dk * 4.0;  // FP32 state per head
}

}  // namespace

double kv_growth_bytes_per_token(const ModelSpec& m, LayerAttention a) {
  const AttentionSpec& at = m.attention;
  switch (a) {
    case LayerAttention::kGqaFull: return gqa_entry(m);
    case LayerAttention::kGqaSliding: return 0;
    case LayerAttention::kMla:
    case LayerAttention::kGatedMla:
    case LayerAttention::kMlaSparseSharedIndex: return mla_entry(m);
    case LayerAttention::kMlaSparse: return mla_entry(m) + indexer_entry(m);
    case LayerAttention::kV4Swa: return 0;
    case LayerAttention::kV4Csa:
      return (at.head_dim + at.indexer_head_dim) * kv_elem(m) / at.csa_compress_ratio;
    case LayerAttention::kV4Hca: return v4_entry(m) / at.hca_compress_ratio;
    case LayerAttention::kV41Csa2: return m.kv_global_bytes_per_token / m.layers;
    case LayerAttention::kKda: return 0;
  }
  return 0;
}

double kv_bounded_bytes(const ModelSpec& m, LayerAttention a, double ctx) {
  switch (a) {
    case LayerAttention::kGqaSliding: return window(m, ctx) * gqa_entry(m);
    case LayerAttention::kV4Swa:
    case LayerAttention::kV4Csa:
    case LayerAttention::kV4Hca:
    case LayerAttention::kV41Csa2: return window(m, ctx) * v4_entry(m);
    case LayerAttention::kKda: return kda_state_bytes(m);
    default: return 0;
  }
}

AttentionCost attention_cost(const ModelSpec& m, LayerAttention a, double ctx, Phase phase) {
  // One formula: the prepared form is the only place the variants are written out.
  return PreparedAttention(m, a, phase).at(ctx);
}

PreparedAttention::PreparedAttention(const ModelSpec& m, LayerAttention a, Phase phase)
    : a_(a), decode_(phase == Phase::kDecode) {
  const AttentionSpec& at = m.attention;
  const double H = at.heads;
  growth_ = kv_growth_bytes_per_token(m, a);
  sparse_topk_ = static_cast<double>(at.sparse_topk);
  window_ = static_cast<double>(at.sliding_window);
  four_h_hd_ = 4.0 * H * at.head_dim;
  gqa_entry_ = gqa_entry(m);
  mla_per_ = phase == Phase::kDecode
                 ? 2.0 * H * (at.kv_lora_rank + at.qk_rope_head_dim) + 2.0 * H * at.kv_lora_rank
                 : 2.0 * H * (at.qk_nope_head_dim + at.qk_rope_head_dim) + 2.0 * H * at.v_head_dim;
  mla_entry_ = mla_entry(m);
  two_ni_di_ = 2.0 * at.indexer_heads * at.indexer_head_dim;
  indexer_entry_ = indexer_entry(m);
  csa_ratio_ = at.csa_compress_ratio;
  hca_ratio_ = at.hca_compress_ratio;
  indexer_head_dim_ = at.indexer_head_dim;
  kv_elem_ = kv_elem(m);
  v4_entry_ = v4_entry(m);
  const double dk = at.head_dim;
  kda_core_ = 4.0 * H * dk * dk;
  kda_state_ = kda_state_bytes(m);
  window_entry_ = a == LayerAttention::kGqaSliding ? gqa_entry_ : v4_entry_;
  closed_ = closed_form();
  last_ = last_piece();
}

double PreparedAttention::whole_bytes(double end) const {
  double bounded = 0;
  switch (a_) {
    case LayerAttention::kGqaSliding:
    case LayerAttention::kV4Swa:
    case LayerAttention::kV4Csa:
    case LayerAttention::kV4Hca:
    case LayerAttention::kV41Csa2: bounded = std::min(end, window_) * window_entry_; break;
    case LayerAttention::kKda: bounded = kda_state_; break;
    default: break;
  }
  return growth_ * end + bounded;
}

long long PreparedAttention::decode_cap() const {
  if (a_ == LayerAttention::kGqaSliding) return static_cast<long long>(window_);
  if ((a_ == LayerAttention::kMlaSparse || a_ == LayerAttention::kMlaSparseSharedIndex) && sparse_topk_ > 0) {
    return static_cast<long long>(sparse_topk_);
  }
  return -1;
}

void PreparedAttention::append_kinks(std::vector<double>& out) const {
  switch (a_) {
    case LayerAttention::kGqaSliding:
    case LayerAttention::kV4Swa:
    case LayerAttention::kV4Hca: out.push_back(window_); break;
    case LayerAttention::kMlaSparse:
    case LayerAttention::kMlaSparseSharedIndex:
      if (sparse_topk_ > 0) out.push_back(sparse_topk_);
      break;
    case LayerAttention::kV4Csa:
    case LayerAttention::kV41Csa2:
      out.push_back(window_);
      if (sparse_topk_ > 0) out.push_back(sparse_topk_ * csa_ratio_);  // ctx / csa_ratio reaches the top-k
      break;
    default: break;
  }
}

namespace {
constexpr double kExactLimit = 9007199254740992.0;  // 2^53: integers below it are exact doubles

// A non-negative integer below 2^53 (cheap: no floor() call on baseline x86-64).
bool integral(double x) {
  return x >= 0 && x < kExactLimit && x == static_cast<double>(static_cast<long long>(x));
}

// acc + total into out, where total is the exact sum of the terms: exact, and so
// equal to adding them one by one, when acc, total and the result are integers below 2^53.
bool exact_add(double acc, double total, double& out) {
  out = acc + total;
  return integral(acc) && total < kExactLimit && out < kExactLimit;
}
}  // namespace

PreparedAttention::ClosedForm PreparedAttention::closed_form() const {
  // Each at(ctx) component is a coefficient x ctx or x min(ctx, cap), or a constant.
  ClosedForm f;
  switch (a_) {
    case LayerAttention::kGqaFull: f = {true, false, four_h_hd_, 0, gqa_entry_, 0, growth_}; break;
    case LayerAttention::kGqaSliding: f = {true, true, four_h_hd_, 0, gqa_entry_, 0, gqa_entry_}; break;
    case LayerAttention::kMla:
    case LayerAttention::kGatedMla: f = {true, false, mla_per_, 0, mla_entry_, 0, growth_}; break;
    case LayerAttention::kMlaSparse:
    case LayerAttention::kMlaSparseSharedIndex:
      f = {true, sparse_topk_ > 0, mla_per_, 0, mla_entry_, 0, growth_};
      if (a_ == LayerAttention::kMlaSparse) {
        f.indexer_per_ctx = two_ni_di_;
        f.indexer_read_per_ctx = indexer_entry_;
      }
      break;
    default: return f;  // compressed (ratio) and recurrent variants: summed one by one
  }
  for (double q : {f.core_per_token, f.indexer_per_ctx, f.read_per_token, f.indexer_read_per_ctx, f.write_per_seq}) {
    if (!integral(q)) f.ok = false;
  }
  return f;
}

bool PreparedAttention::add_exact_sum(long long n, long long ctx_sum, long long capped_sum, AttentionCost& acc) const {
  // With integral coefficients every term is an integer no larger than the total, so
  // summing one by one is exact and equals the closed form.
  const ClosedForm& f = closed_;
  if (!f.ok) return false;
  const auto C = static_cast<double>(ctx_sum);
  const double attended = f.capped ? static_cast<double>(capped_sum) : C;
  const double read_attended = f.read_per_token * attended, read_index = f.indexer_read_per_ctx * C;
  if (C >= kExactLimit || read_attended >= kExactLimit || read_index >= kExactLimit) return false;
  AttentionCost out = acc;
  if (!exact_add(acc.core_flops, f.core_per_token * attended, out.core_flops) ||
      !exact_add(acc.indexer_flops, f.indexer_per_ctx * C, out.indexer_flops) ||
      !exact_add(acc.kv_read_bytes, read_attended + read_index, out.kv_read_bytes) ||
      !exact_add(acc.kv_write_bytes, f.write_per_seq * static_cast<double>(n), out.kv_write_bytes)) {
    return false;
  }
  acc = out;
  return true;
}

namespace {
// The finest unit at()'s values are handled in: 2^-16.
constexpr double kFinestUnit = 65536.0;
// The longest run consecutive_sum adds in closed form.
constexpr long long kMaxRun = 64;
// A multiple of 2^-16 below 2^36: products of a few of them with integer contexts stay exact doubles.
bool dyadic(double x) {
  const double scaled = std::fabs(x) * 65536.0;
  return scaled < 4503599627370496.0 && scaled == std::floor(scaled);
}
// Dividing by a power of two (or by 1) is exact.
bool power_of_two(double r) {
  int e = 0;
  return r > 0 && std::frexp(r, &e) == 0.5;
}
}  // namespace

PreparedAttention::LastPiece PreparedAttention::last_piece() const {
  LastPiece p;
  // at() evaluates exactly at integer contexts when every constant it multiplies or adds is a
  // short dyadic and every ratio it divides by a power of two; then three samples past the last
  // kink give the piece's coefficients, and integral ones make every term an integer.
  for (double c : {growth_, sparse_topk_, window_, four_h_hd_, gqa_entry_, mla_per_, mla_entry_, two_ni_di_,
                   indexer_entry_, indexer_head_dim_, kv_elem_, v4_entry_, kda_core_, kda_state_}) {
    if (!dyadic(c)) return p;
  }
  const bool divides = a_ == LayerAttention::kV4Csa || a_ == LayerAttention::kV4Hca || a_ == LayerAttention::kV41Csa2;
  if (divides && (!power_of_two(csa_ratio_) || !power_of_two(hca_ratio_))) return p;
  std::vector<double> kinks;
  append_kinks(kinks);
  double from = 1;
  for (double k : kinks) from = std::max(from, std::ceil(k));
  if (!integral(from) || from > 1e12) return p;
  auto parts = [](const AttentionCost& c) {
    return std::array<double, 4>{c.core_flops, c.indexer_flops, c.kv_read_bytes, c.kv_write_bytes};
  };
  const auto v0 = parts(at(from)), v1 = parts(at(from + 1)), v2 = parts(at(from + 2));
  constexpr double kLimit = 9007199254740992.0;  // 2^53
  double max_ctx_sum = 1e18;
  for (std::size_t j = 0; j < 4; ++j) {
    // The coarsest unit 2^-k (k <= 16) in which the three samples are integers.
    double unit = 1;
    while (unit < kFinestUnit && !(integral(v0[j] * unit) && integral(v1[j] * unit) && integral(v2[j] * unit))) unit *= 2;
    const double s0 = v0[j] * unit, s1 = v1[j] * unit, s2 = v2[j] * unit;  // exact: powers of two
    if (!integral(s0) || !integral(s1) || !integral(s2) || s2 - s1 != s1 - s0) return p;
    p.b[j] = static_cast<long long>(s1) - static_cast<long long>(s0);
    p.a[j] = static_cast<long long>(s0) - p.b[j] * static_cast<long long>(from);
    p.unit[j] = 1.0 / unit;
    // No component falls with context; with b >= 0 every term from `from` on is at least
    // term(from) >= 0, and n <= kMaxRun terms whose contexts sum to at most max_ctx_sum
    // stay below 2^53 units.
    if (p.b[j] < 0) return p;
    const double room = kLimit - 1 - kMaxRun * std::fabs(static_cast<double>(p.a[j]));
    if (room <= 0) return p;
    if (p.b[j] > 0) max_ctx_sum = std::min(max_ctx_sum, std::floor(room / static_cast<double>(p.b[j])));
  }
  p.from = static_cast<long long>(from);
  p.max_ctx_sum = static_cast<long long>(max_ctx_sum);
  p.ok = true;
  return p;
}

bool PreparedAttention::consecutive_sum(long long first, long long n, AttentionCost& out) const {
  const LastPiece& p = last_;
  if (!p.ok || first < p.from || first > (1LL << 36) || n < 1 || n > kMaxRun) return false;
  const long long ctx_sum = (2 * first + n - 1) * n / 2;  // below 2^43
  if (ctx_sum > p.max_ctx_sum) return false;
  // Terms (a + b x ctx) units for ctx in [first, first + n): each at least 0 and their sum below
  // 2^53 units (last_piece's bounds), so adding them one by one in doubles is exact and equals this.
  auto total = [&](std::size_t j) { return static_cast<double>(n * p.a[j] + p.b[j] * ctx_sum) * p.unit[j]; };
  out = AttentionCost{};
  out.core_flops = total(0);
  out.indexer_flops = total(1);
  out.kv_read_bytes = total(2);
  out.kv_write_bytes = total(3);
  return true;
}

}  // namespace agentsim::wl
