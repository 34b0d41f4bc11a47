#pragma once
// Turns explicit block-hash lists into the compact prefix form of wl::Turn:
// the longest leading run already seen (at the same positions) becomes a link
// to the earliest turn holding it, the rest becomes runs of new ids.
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

class PrefixTreeBuilder {
 public:
  // Adds turn `ref` (in `session`, whose turns must already hold it) with prompt `ids`,
  // compared only with earlier turns of the same id `space`. Turns must come in trace order.
  void add(std::int64_t space, TurnRef ref, const std::vector<std::uint64_t>& ids, Session& session);

 private:
  struct Seen {
    TurnRef first;     // earliest turn whose prompt holds the block
    std::int32_t pos;  // the block's position in that prompt
  };
  struct KeyHash {
    std::size_t operator()(const std::pair<std::int64_t, std::uint64_t>& k) const {
      return std::hash<std::uint64_t>{}(k.second * 0x9E3779B97F4A7C15ULL ^ static_cast<std::uint64_t>(k.first));
    }
  };
  // Lookup only; never iterated, so its order cannot reach any output.
  std::unordered_map<std::pair<std::int64_t, std::uint64_t>, Seen, KeyHash> seen_;
};

// Appends `ids` to `session.block_runs` as runs of consecutive ids and sets `turn`'s range.
void append_block_runs(Session& session, Turn& turn, const std::uint64_t* ids, std::size_t n);

}  // namespace agentsim::wl
