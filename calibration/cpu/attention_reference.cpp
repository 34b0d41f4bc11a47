#include "calibration/cpu/attention_reference.hpp"

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "sim/core/rng.hpp"

namespace agentsim::calib {

PagedKv make_paged_kv(int batch, int context, int heads, int head_dim, int block_tokens) {
  PagedKv kv;
  kv.block_tokens = block_tokens;
  kv.heads = heads;
  kv.head_dim = head_dim;
  const int blocks_per_seq = (context + block_tokens - 1) / block_tokens;
  const int total_blocks = blocks_per_seq * batch;
  const std::size_t block_floats = static_cast<std::size_t>(block_tokens) * heads * head_dim;
  kv.k.assign(block_floats * total_blocks, 0.01f);
  kv.v.assign(block_floats * total_blocks, 0.02f);
  std::vector<int> order(static_cast<std::size_t>(total_blocks));
  std::iota(order.begin(), order.end(), 0);
  core::RngStream rng(1, "calibration/cpu/paged_kv");
  std::shuffle(order.begin(), order.end(), rng);
  kv.block_table.resize(static_cast<std::size_t>(batch));
  for (int b = 0; b < batch; ++b) {
    kv.block_table[b].assign(order.begin() + b * blocks_per_seq, order.begin() + (b + 1) * blocks_per_seq);
  }
  kv.context.assign(static_cast<std::size_t>(batch), context);
  return kv;
}

double decode_kv_bytes(const PagedKv& kv) {
  double tokens = 0;
  for (int c : kv.context) tokens += c;
  return tokens * kv.heads * kv.head_dim * 2.0 * sizeof(float);
}

void decode_attention(const PagedKv& kv, const std::vector<float>& q, std::vector<float>& out) {
  const int batch = static_cast<int>(kv.context.size());
  const int d = kv.head_dim;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d));
  std::vector<float> acc(static_cast<std::size_t>(d));
  for (int b = 0; b < batch; ++b) {
    for (int h = 0; h < kv.heads; ++h) {
      const float* qv = &q[(static_cast<std::size_t>(b) * kv.heads + h) * d];
      // Online softmax: one pass over the cached tokens, as decode kernels do.
      float running_max = -std::numeric_limits<float>::infinity();
      float denom = 0;
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int t = 0; t < kv.context[b]; ++t) {
        const std::size_t block = static_cast<std::size_t>(kv.block_table[b][t / kv.block_tokens]);
        const std::size_t off = ((block * kv.block_tokens + t % kv.block_tokens) * kv.heads + h) * d;
        const float* kp = &kv.k[off];
        const float* vp = &kv.v[off];
        float s = 0;
        for (int i = 0; i < d; ++i) s += qv[i] * kp[i];
        s *= scale;
        const float new_max = std::max(running_max, s);
        const float correction = std::exp(running_max - new_max);
        const float p = std::exp(s - new_max);
        denom = denom * correction + p;
        for (int i = 0; i < d; ++i) acc[i] = acc[i] * correction + p * vp[i];
        running_max = new_max;
      }
      float* o = &out[(static_cast<std::size_t>(b) * kv.heads + h) * d];
      for (int i = 0; i < d; ++i) o[i] = acc[i] / denom;
    }
  }
}

void prefill_attention(int batch, int heads, int seq, int head_dim, const std::vector<float>& q,
                       const std::vector<float>& k, const std::vector<float>& v, std::vector<float>& out) {
  using RowMat = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
  const float scale = 1.0f / std::sqrt(static_cast<float>(head_dim));
  RowMat scores(seq, seq);
  const std::size_t head_floats = static_cast<std::size_t>(seq) * head_dim;
  for (int bh = 0; bh < batch * heads; ++bh) {
    const std::size_t off = static_cast<std::size_t>(bh) * head_floats;
    Eigen::Map<const RowMat> qm(&q[off], seq, head_dim);
    Eigen::Map<const RowMat> km(&k[off], seq, head_dim);
    Eigen::Map<const RowMat> vm(&v[off], seq, head_dim);
    Eigen::Map<RowMat> om(&out[off], seq, head_dim);
    scores.noalias() = (qm * km.transpose()) * scale;
    for (int i = 0; i < seq; ++i) {
      auto row = scores.row(i);
      for (int j = i + 1; j < seq; ++j) row(j) = -std::numeric_limits<float>::infinity();
      const float mx = row.head(i + 1).maxCoeff();
      row = (row.array() - mx).exp();
      row /= row.sum();
    }
    om.noalias() = scores * vm;
  }
}

double prefill_flops(int batch, int heads, int seq, int head_dim) {
  return 4.0 * batch * heads * static_cast<double>(seq) * seq * head_dim;
}

}  // namespace agentsim::calib
