#include "workloads/sessions/prefix_tree_builder.hpp"

namespace agentsim::wl {

void append_block_runs(Session& session, Turn& turn, const std::uint64_t* ids, std::size_t n) {
  turn.runs_begin = static_cast<std::uint32_t>(session.block_runs.size());
  for (std::size_t i = 0; i < n; ++i) {
    auto& runs = session.block_runs;
    if (runs.size() > turn.runs_begin && runs.back().first + runs.back().count == ids[i]) {
      ++runs.back().count;
    } else {
      runs.push_back(BlockRun{ids[i], 1});
    }
  }
  turn.runs_end = static_cast<std::uint32_t>(session.block_runs.size());
}

void PrefixTreeBuilder::add(std::int64_t space, TurnRef ref, const std::vector<std::uint64_t>& ids,
                            Session& session) {
  Turn& turn = session.turns[static_cast<std::size_t>(ref.turn)];
  std::size_t matched = 0;
  TurnRef parent;
  // Chained hashes: a block seen at the same position implies its whole prefix, so the
  // earliest holder of the last matched block holds all of them.
  while (matched < ids.size()) {
    auto it = seen_.find({space, ids[matched]});
    if (it == seen_.end() || it->second.pos != static_cast<std::int32_t>(matched)) break;
    parent = it->second.first;
    ++matched;
  }
  turn.prefix_parent = matched > 0 ? parent : TurnRef{};
  turn.prefix_blocks = static_cast<std::int32_t>(matched);
  append_block_runs(session, turn, ids.data() + matched, ids.size() - matched);
  for (std::size_t i = matched; i < ids.size(); ++i) {
    seen_.try_emplace({space, ids[i]}, Seen{ref, static_cast<std::int32_t>(i)});
  }
}

}  // namespace agentsim::wl
