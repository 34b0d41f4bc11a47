#include "sim/serving/step_batch.hpp"

namespace agentsim::serving {

long long StepBatch::new_tokens() const {
  long long n = static_cast<long long>(decodes.size());
  for (const auto& p : prefills) n += p.tokens;
  return n;
}

long long StepBatch::sampled_tokens() const {
  long long n = static_cast<long long>(decodes.size());
  for (const auto& p : prefills) n += p.completes_prompt ? 1 : 0;
  return n;
}

}  // namespace agentsim::serving
