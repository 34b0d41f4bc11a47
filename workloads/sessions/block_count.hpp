#pragma once
// How many prefix-block ids a prompt may carry: its full blocks (as Claude Code and the
// generator record), or those plus the partial last block (as Mooncake records).
#include <string>

namespace agentsim::wl {

// Empty when `blocks` is floor or ceil of in_tokens / block_size; otherwise the
// expectation, for an error message. `block_size` > 0.
inline std::string block_count_mismatch(long long in_tokens, long long blocks, long long block_size) {
  const long long full = in_tokens / block_size;
  const long long all = (in_tokens + block_size - 1) / block_size;
  if (blocks == full || blocks == all) return "";
  const std::string want = std::to_string(full) + (all != full ? " or " + std::to_string(all) : "");
  return "expected " + want + " block ids for " + std::to_string(in_tokens) + " input tokens at " +
         std::to_string(block_size) + " tokens per block, found " + std::to_string(blocks);
}

}  // namespace agentsim::wl
