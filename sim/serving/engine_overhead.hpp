#pragma once
// Host time of one engine step that the accelerators wait for: scheduling,
// input preparation, sampling, detokenisation and output handling, as a function
// of the batch. Per serving engine (serving.engine), with defaults in
// experiments/catalog/engines.yaml (a citation or an `assumed:` derivation per value):
//
//   host_s(batch) = fixed + per_sequence x sequences + per_token x new tokens
//   (the sequences and tokens of one scheduler: with attention DP every rank runs its own
//   scheduler and captures its own graphs (vLLM's DP engine cores, SGLang's DP-attention
//   schedulers, TensorRT-LLM's ADP executors), in parallel, so they count one rank's even share
//   of the batch, rounded up; the graph limit below counts them the same way),
//   fixed = graph_fixed_s for a decode-only step of at most graph_max_sequences
//           sequences (graph_step: replayed from a CUDA/HIP graph, no per-kernel
//           launches on the host), fixed_s otherwise (eager prefill or mixed steps,
//           larger batches). The step cost also takes the launch floor per kernel
//           from graph_step when StepCostOptions::cuda_graph (deployment.cuda_graph) is on.
//
// The fixed term is exposed host time (what the step model leaves out, fitted by validation).
// The per-sequence and per-token terms are host work that an overlap scheduler (SGLang's
// zero-overhead scheduler, TensorRT-LLM's overlap scheduler, vLLM's async scheduling; catalog
// key overlap_scheduler) runs while the accelerators run the step, so only what outlasts the
// step's device time is exposed (exposed_s); without it all of it is. `serving.step_overhead`
// replaces the whole model by a constant (docs/serving.md).
#include <cstddef>
#include <iterator>
#include <string_view>

#include "sim/core/name_table.hpp"
#include "sim/serving/step_batch.hpp"

namespace agentsim::serving {

enum class Engine { kVllm, kSglang, kTrtllm, kAtom };
// The names of `serving.engine` and of measured rows' engine column (atom: AMD's ATOM, github.com/ROCm/ATOM).
inline constexpr core::NameTable<Engine, 4> kEngineNames = {{
    {"vllm", Engine::kVllm}, {"sglang", Engine::kSglang}, {"trtllm", Engine::kTrtllm}, {"atom", Engine::kAtom}}};
inline constexpr std::size_t kEngineCount = std::size(kEngineNames);
inline constexpr Engine kDefaultEngine = Engine::kVllm;

struct EngineOverhead {
  double fixed_s = 0;            // per eager step (prefill or mixed, or decode beyond the graph sizes)
  double graph_fixed_s = 0;      // per decode-only step replayed from a graph
  int graph_max_sequences = 0;   // largest decode batch with a captured graph (0: no limit)
  double per_sequence_s = 0;     // per sequence in the batch (sampling, detokenisation, output)
  double per_token_s = 0;        // per new token (input preparation, prefill bookkeeping)
  // Not host time but the engine's scheduling scope (catalog key batch_limits): true when
  // serving.max_batch_tokens / max_sequences bind each attention-DP rank's own scheduler
  // (vLLM's DP engine cores, TensorRT-LLM's attention-DP ranks), false when they bind the
  // whole replica (SGLang divides them by dp_size).
  bool limits_per_dp_rank = false;
  // Also scheduling (catalog key mixed_batches): true when a step runs prefill chunks alongside
  // the decodes (vLLM V1, TensorRT-LLM in-flight batching), false when a step with new prefill
  // work runs it alone and the decodes wait for the next step (SGLang without --enable-mixed-chunk).
  bool mixed_batches = true;
  // Not step time either (catalog key request_latency): a request's path outside the engine
  // loop, client to scheduler and first chunk back (HTTP server, tokeniser, IPC, detokeniser,
  // streaming client), charged once per request before the scheduler sees it (RequestPath).
  double request_latency_s = 0;
  // The engine runs each step's per-sequence and per-token host work alongside the accelerators'
  // previous step (catalog key overlap_scheduler; `serving.overlap_scheduler` overrides it).
  bool overlap_scheduler = false;
  // Not host time either (catalog key decode_all_to_all_nic_efficiency, optional): where the
  // expert-parallel group spans systems, the fraction of the links' rate at which a decode-only
  // step's all-to-all moves its bytes (the engine's low-latency all-to-all kernels, as measured);
  // 0: the network efficiency, as for every other collective.
  double decode_all_to_all_nic_efficiency = 0;

  // The terms of one step.
  struct Terms {
    bool graph = false;          // the fixed term is graph_fixed_s
    double fixed_s = 0, sequences_s = 0, tokens_s = 0;
    double total_s() const { return fixed_s + sequences_s + tokens_s; }
  };
  // `schedulers`: the plan's attention-DP ranks (ReplicaPlan::attn_dp).
  Terms terms(const StepBatch& batch, int schedulers) const;
  // The step replays a captured graph (when StepCostOptions::cuda_graph is on): decode-only,
  // within graph_max_sequences a rank.
  bool graph_step(const StepBatch& batch, int schedulers) const;
  double host_s(const StepBatch& batch, int schedulers) const { return terms(batch, schedulers).total_s(); }
  // The host time a step of `device_s` seconds on the accelerators waits for: the fixed term, and
  // the per-sequence and per-token terms less `device_s` with the overlap scheduler (never below 0).
  double exposed_s(const Terms& t, double device_s) const;
  bool zero() const { return fixed_s == 0 && graph_fixed_s == 0 && per_sequence_s == 0 && per_token_s == 0; }
};

std::string_view to_string(Engine e);

}  // namespace agentsim::serving
