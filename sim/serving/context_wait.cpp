#include "sim/serving/context_wait.hpp"

namespace agentsim::serving {

bool holds_prompts(const ContextWait& w, long long& counter, long long waiting, long long prompt_tokens,
                   long long decoding, long long decode_tokens) {
  if (w.balance_timeout_steps > 0) {
    const long long ranks = w.balance_ranks;
    if (waiting >= ranks) {  // every rank has a prompt
      counter = 0;
      return false;
    }
    ++counter;
    if (counter >= w.balance_timeout_steps || decoding < ranks) {  // timed out, or a rank decodes none
      counter = 0;
      return false;
    }
    return waiting > 0;
  }
  if (w.batch_wait_steps > 0 || w.batch_wait_tokens > 0) {
    if (waiting == 0 || decoding == 0) return false;  // "no generation requests, no need to wait"
    if (counter >= w.batch_wait_steps ||
        (w.batch_wait_tokens > 0 && static_cast<double>(prompt_tokens + decode_tokens) >= w.batch_wait_tokens)) {
      counter = 0;
      return false;
    }
    ++counter;
    return true;
  }
  return false;
}

long long counter_after_idle_steps(const ContextWait& w, long long counter, long long steps, long long decoding) {
  if (steps <= 0 || w.balance_timeout_steps <= 0) return counter;  // batch waiting counts held steps only
  if (decoding < w.balance_ranks) return 0;                        // every step restarts it
  return (counter + steps) % w.balance_timeout_steps;
}

}  // namespace agentsim::serving
