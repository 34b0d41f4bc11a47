#pragma once
// TensorRT-LLM's launch options that hold new prompts (its context requests) back for some
// steps so that they start together (tensorrt_llm/_torch/pyexecutor/py_executor.py,
// PyExecutor._schedule, _balance_adp_requests and _waiting_requests):
//  - attention-DP balance (attention_dp_config {enable_balance: true, timeout_iters: T}, with
//    batching_wait_iters 0): prompts start in a step where every attention-DP rank has one or
//    some rank has no decoding request; otherwise the step counts, and the T-th counted step
//    starts whatever waits. The count runs whether prompts wait or not and restarts when they
//    start. A replica here does not place requests on ranks: "every rank has a prompt" is taken
//    as at least `balance_ranks` prompts waiting, "some rank decodes none" as fewer than
//    `balance_ranks` sequences decoding.
//  - batch waiting (batch_wait_timeout_iters W, batch_wait_max_tokens_ratio R; TensorRT-LLM
//    applies it only without attention DP): in a step with prompts waiting and sequences
//    decoding, the prompts start once their tokens plus the decode tokens reach R x
//    max_num_tokens or W such steps have held them; each held step counts.
namespace agentsim::serving {

struct ContextWait {
  int balance_timeout_steps = 0;  // T; 0: no attention-DP balance
  int balance_ranks = 1;          // attention-DP ranks of the replica
  int batch_wait_steps = 0;       // W
  double batch_wait_tokens = 0;   // R x max_num_tokens; with W, 0 and 0: no batch waiting
  bool active() const { return balance_timeout_steps > 0 || batch_wait_steps > 0 || batch_wait_tokens > 0; }
};

// One step's decision: true when the waiting prompts are held back this step. `counter` is the
// replica's count of held steps, updated as TensorRT-LLM updates its own. `waiting`: prompts
// waiting to start; `prompt_tokens`: the tokens of those the step could take; `decoding`:
// sequences decoding; `decode_tokens`: their query tokens this step.
bool holds_prompts(const ContextWait& w, long long& counter, long long waiting, long long prompt_tokens,
                   long long decoding, long long decode_tokens);

// The counter after `steps` more steps with no prompt waiting and `decoding` sequences decoding:
// what `steps` calls of holds_prompts with waiting = 0 leave it at, without the loop.
long long counter_after_idle_steps(const ContextWait& w, long long counter, long long steps, long long decoding);

}  // namespace agentsim::serving
