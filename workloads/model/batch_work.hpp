#pragma once
// The work one forward step of a batch puts on one device under a parallel
// plan, as rows: per layer kind and op, FLOPs by format and bytes read/written
// (weights actually touched, KV, activations, host memory), plus the
// collectives the plan needs. batch_work() records what wl::StepWork visits
// (`agentsim model` prints it); the step cost prices StepWork's visit directly.
#include <map>
#include <string>
#include <vector>

#include "workloads/model/attention_cost.hpp"
#include "workloads/model/model_spec.hpp"
#include "workloads/model/parallel_plan.hpp"

namespace agentsim::wl {

struct PrefillShape {
  double new_tokens = 0;     // tokens computed in this step
  double cached_tokens = 0;  // context already in the KV cache
  bool samples = true;       // last chunk of the prompt: the LM head runs once
  bool output = false;       // speculative verification of output tokens: runs the decode-only layers too
};

struct BatchShape {
  std::vector<PrefillShape> prefill;
  std::vector<double> decode_contexts;  // tokens before each decode token
};

struct OpWork {
  std::string layer_kind;  // LayerKind::name(), or "model" for once-per-step ops
  std::string op;          // wl::Op's name: attn_proj, attn_core, indexer, router, dense_ffn,
                           // shared_experts, latent_proj, routed_experts, embedding, engram, lm_head
  double layers = 0;       // layers of this kind on the device (0 for once-per-step ops)
  hw::DType dtype = hw::DType::kBf16;  // format of the math (weights for matmuls)
  double flops = 0;
  double weight_read_bytes = 0;
  double kv_read_bytes = 0;
  double kv_write_bytes = 0;
  double act_read_bytes = 0;
  double act_write_bytes = 0;
  double host_read_bytes = 0;  // over the host link (Engram on host)
};

struct CollectiveWork {
  std::string kind;   // wl::CollectiveOp's name: all_reduce, all_to_all_dispatch, all_to_all_combine, send_recv, all_gather, reduce_scatter
  std::string where;  // e.g. "mla/moe attention output"
  int group = 1;      // devices taking part
  double count = 0;   // occurrences per step on this device
  double payload_bytes = 0;  // per occurrence, per device
};

struct BatchWork {
  std::vector<OpWork> ops;
  std::vector<CollectiveWork> collectives;

  double flops() const;
  std::map<hw::DType, double> flops_by_dtype() const;
  double weight_read_bytes() const;
  double kv_read_bytes() const;
  double kv_write_bytes() const;
  double act_bytes() const;
  double host_read_bytes() const;
  double collective_bytes() const;  // sum of count x payload
};

// Attention of one layer over a prefill chunk: token i of the chunk sees
// cached + i + 1 tokens (StepWork's per-chunk term, summed over its queries).
AttentionCost chunk_attention(const PreparedAttention& a, const PrefillShape& c);

BatchWork batch_work(const ModelSpec& m, const ParallelPlan& plan, const BatchShape& batch);

}  // namespace agentsim::wl
