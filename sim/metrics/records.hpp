#pragma once
// Plain records the serving engine emits. Times are simulated seconds.
namespace agentsim::metrics {

struct RequestRecord {
  int agent = -1;               // closed-loop agent index, -1 for open-loop
  long long input_tokens = 0;   // prompt length
  long long cached_tokens = 0;  // prompt tokens served from the prefix cache
  long long output_tokens = 0;
  double arrival_s = 0;         // sent by the client
  double first_token_s = 0;     // first output token emitted
  double last_token_s = 0;      // last output token emitted
  bool rejected = false;        // could never fit the replica's KV cache
};

struct StepRecord {
  int replica = 0;
  double start_s = 0;
  double end_s = 0;
  int decode_tokens = 0;         // decode query tokens: one per decoding sequence, k + 1 when speculating
  long long prefill_tokens = 0;  // prompt tokens computed
  long long recomputed_tokens = 0;  // of prefill_tokens, computed again after a recompute preemption
  long long cached_tokens = 0;   // prompt tokens served from cache, counted when the prompt completes
  int sampled_tokens = 0;        // output tokens emitted at end_s
  int batch_sequences = 0;
  int steps = 1;                 // > 1: a fast-forwarded run of identical decode-only steps; the
                                 // per-step fields above hold one step's values, start/end span the run
  double kv_used_fraction = 0;   // HBM KV blocks in use / capacity at the step's start
  double compute_s = 0, memory_s = 0, comm_s = 0, overhead_s = 0;
};

}  // namespace agentsim::metrics
