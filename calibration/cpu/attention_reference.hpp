#pragma once
// Reference attention kernels for the CPU backend (fp32, multi-head, heads ==
// KV heads): decode against a paged KV cache, and causal prefill.
#include <vector>

namespace agentsim::calib {

// KV cache in fixed-size blocks: K and V laid out [block][token][head][dim].
struct PagedKv {
  int block_tokens = 16;
  int heads = 4;
  int head_dim = 64;
  std::vector<float> k, v;
  std::vector<std::vector<int>> block_table;  // per sequence, its blocks in token order
  std::vector<int> context;                   // per sequence, cached tokens
};

// Builds a cache for `batch` sequences of `context` tokens whose blocks are
// scattered over the pool (a seeded permutation), as a paged allocator leaves them.
PagedKv make_paged_kv(int batch, int context, int heads, int head_dim, int block_tokens);
// Bytes of K and V one decode step reads.
double decode_kv_bytes(const PagedKv& kv);
// One query token per sequence: q and out are [batch][heads][dim].
void decode_attention(const PagedKv& kv, const std::vector<float>& q, std::vector<float>& out);

// Causal attention over `seq` tokens of `batch` sequences; q, k, v, out are
// [batch][heads][seq][dim]. Computes the full score matrix and masks it.
void prefill_attention(int batch, int heads, int seq, int head_dim, const std::vector<float>& q,
                       const std::vector<float>& k, const std::vector<float>& v, std::vector<float>& out);
// FLOPs prefill_attention executes: QK^T and PV over the full seq x seq matrix.
double prefill_flops(int batch, int heads, int seq, int head_dim);

}  // namespace agentsim::calib
