#pragma once
// The ops of one engine step and the collectives between them: one enumeration
// each, carrying the name `explain`, `agentsim model` and the breakdown print
// and (for ops) the kernel launches per layer the step cost floors at.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace agentsim::wl {

// In the order a layer runs them, then the once-per-step ops.
enum class Op : std::uint8_t {
  kAttnProj, kAttnCore, kIndexer, kRouter, kSharedExperts, kLatentProj, kRoutedExperts, kDenseFfn, kNormAct,
  kEmbedding, kEngram, kLmHead,
  kHostKvLoad,  // KV loaded over the host link (the step cost's row; no kernels)
};

struct OpInfo {
  std::string_view name;
  // Kernel launches per layer (assumed: what vLLM/SGLang run after their usual
  // fusions, e.g. attn_proj = input norm, QKV GEMM, RoPE + cache write, output
  // GEMM; dense_ffn = norm, gate/up GEMM, down: the SiLU's launch is not counted).
  // norm_act has none of its own: it is the norms' and the SiLU's memory traffic
  // (StepWork::visit), priced as a memory-bound op beside the GEMMs.
  double kernels_per_layer;
  // Its work on a decode depends on the context (attention over the cache, the sparse
  // indexer's scan); every other op's depends on the step's token counts only.
  bool reads_contexts = false;
};

inline constexpr std::array<OpInfo, 13> kOps = {{
    {"attn_proj", 4}, {"attn_core", 1, true}, {"indexer", 2, true}, {"router", 2}, {"shared_experts", 2},
    {"latent_proj", 2}, {"routed_experts", 4}, {"dense_ffn", 3}, {"norm_act", 0}, {"embedding", 1}, {"engram", 1}, {"lm_head", 2},
    {"host_kv_load", 0},
}};
constexpr const OpInfo& info(Op op) { return kOps[static_cast<std::size_t>(op)]; }
constexpr std::string_view to_string(Op op) { return info(op).name; }

// The collectives a plan adds to a step. The expert exchange under attention DP is an
// all-to-all pair (dispatch, combine) or, without an all-to-all backend, an all-gather of
// every DP group's tokens and a reduce-scatter of the expert outputs (ParallelPlan).
enum class CollectiveOp : std::uint8_t { kAllReduce, kDispatch, kCombine, kSendRecv, kAllGather, kReduceScatter };
inline constexpr std::array<std::string_view, 6> kCollectiveOpNames = {
    "all_reduce", "all_to_all_dispatch", "all_to_all_combine", "send_recv", "all_gather", "reduce_scatter"};
constexpr std::string_view to_string(CollectiveOp c) { return kCollectiveOpNames[static_cast<std::size_t>(c)]; }

}  // namespace agentsim::wl
