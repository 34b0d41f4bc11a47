#pragma once
// The work of one engine step: decode tokens and prefill chunks.
#include <vector>

namespace agentsim::serving {

struct DecodeItem {
  long long context_tokens = 0;  // tokens already in the KV cache for this sequence
};

struct PrefillChunk {
  long long tokens = 0;          // new prompt tokens computed this step
  long long cached_tokens = 0;   // tokens of this prompt already in the KV cache
  bool completes_prompt = false; // the chunk ends the prompt: a first token is sampled
};

struct StepBatch {
  std::vector<DecodeItem> decodes;
  std::vector<PrefillChunk> prefills;

  long long new_tokens() const;      // decode tokens + prefill chunk tokens
  long long sampled_tokens() const;  // decodes + completing prefills
  bool empty() const { return decodes.empty() && prefills.empty(); }
};

}  // namespace agentsim::serving
