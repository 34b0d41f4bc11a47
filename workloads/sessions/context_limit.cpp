#include "workloads/sessions/context_limit.hpp"

#include <algorithm>
#include <limits>

namespace agentsim::wl {
namespace {

// The first `n` block ids of `runs`, as runs.
std::vector<BlockRun> leading_runs(const std::vector<BlockRun>& runs, long long n) {
  std::vector<BlockRun> out;
  for (const BlockRun& r : runs) {
    if (n <= 0) break;
    const auto take = static_cast<std::uint32_t>(std::min<long long>(n, r.count));
    out.push_back(BlockRun{r.first, take});
    n -= take;
  }
  return out;
}

// A turn's prompt while the limit is applied: its link and its own runs, and how many of its
// leading blocks still equal the recorded prompt's.
struct Draft {
  std::vector<BlockRun> runs;
  long long same_blocks = 0;
  bool rebased = false;  // linked to the rewritten previous turn by construction
};

}  // namespace

long long shortest_prompt_tokens(const Trace& trace) {
  long long lo = std::numeric_limits<long long>::max();
  for (const auto& s : trace.sessions) {
    for (const auto& t : s.turns) lo = std::min(lo, t.input_tokens);
  }
  return lo == std::numeric_limits<long long>::max() ? 0 : lo;
}

long long apply_context_limit(Trace& trace, long long limit, double keep_fraction) {
  const auto bs = static_cast<long long>(trace.block_size_tokens);
  const bool blocks = bs > 0;
  const long long target = std::max<long long>(1, static_cast<long long>(keep_fraction * static_cast<double>(limit)));
  const long long output_cap = std::max<long long>(1, limit / 2);
  std::uint64_t next_id = 0;  // fresh ids for the text that replaces the dropped turns
  for (const auto& s : trace.sessions) {
    for (const auto& r : s.block_runs) next_id = std::max<std::uint64_t>(next_id, r.first + r.count);
  }
  std::vector<std::vector<Draft>> drafts(trace.sessions.size());
  long long truncated = 0;
  for (std::size_t si = 0; si < trace.sessions.size(); ++si) {
    Session& s = trace.sessions[si];
    auto& d = drafts[si];
    d.resize(s.turns.size());
    long long drop_blocks = 0, drop_tokens = 0;  // carried from the session's last truncation
    long long head_blocks = 0;                   // the first prompt's blocks a drop keeps
    long long kept_blocks = 0;                   // leading blocks the last truncation kept
    for (std::size_t k = 0; k < s.turns.size(); ++k) {
      Turn& t = s.turns[k];
      const std::vector<BlockRun> own(s.block_runs.begin() + t.runs_begin, s.block_runs.begin() + t.runs_end);
      const long long shared = t.prefix_parent.valid() ? t.prefix_blocks : 0;
      long long own_blocks = 0;
      for (const auto& r : own) own_blocks += r.count;
      const long long recorded_blocks = shared + own_blocks;
      const bool follows_previous = k > 0 && !t.prefix_break &&
                                    (!blocks || (t.prefix_parent == TurnRef{static_cast<std::int32_t>(si),
                                                                            static_cast<std::int32_t>(k - 1)} &&
                                                 shared >= kept_blocks + drop_blocks));
      if (!follows_previous) drop_blocks = drop_tokens = 0;
      d[k].runs = own;
      d[k].same_blocks = recorded_blocks;
      const long long input = t.input_tokens - drop_tokens;
      if (input + t.output_tokens > limit) {
        ++truncated;
        t.truncated = true;
        t.output_tokens = std::min(t.output_tokens, output_cap);
        const long long cap = k == 0 ? limit - t.output_tokens : std::min(target, limit - t.output_tokens);
        // Tokens past the last full block stay; whole blocks are dropped (the first prompt: cut).
        const long long rem = blocks ? std::clamp<long long>(t.input_tokens - recorded_blocks * bs, 0, bs - 1) : 0;
        const long long new_blocks = blocks ? std::max<long long>(0, (cap - rem) / bs) : 0;
        const long long new_input = blocks ? std::min(cap, new_blocks * bs + rem) : cap;
        const long long keep = k == 0 ? new_blocks : std::min(head_blocks, new_blocks);  // leading blocks kept
        drop_tokens = t.input_tokens - new_input;
        drop_blocks = recorded_blocks - new_blocks;
        t.input_tokens = new_input;
        t.prefix_break = k > 0;
        if (blocks) {
          if (t.prefix_parent.valid()) t.prefix_blocks = static_cast<std::int32_t>(std::min(shared, keep));
          d[k].runs = leading_runs(own, keep - std::min(shared, keep));
          if (new_blocks > keep) {
            d[k].runs.push_back(BlockRun{next_id, static_cast<std::uint32_t>(new_blocks - keep)});
            next_id += static_cast<std::uint64_t>(new_blocks - keep);
          }
          d[k].same_blocks = keep;
        }
        kept_blocks = keep;
        if (k == 0) drop_blocks = drop_tokens = 0;  // a cut first prompt: later turns are measured against it anew
      } else if (drop_tokens > 0) {
        t.input_tokens = input;
        if (blocks) {
          t.prefix_blocks = static_cast<std::int32_t>(shared - drop_blocks);
          d[k].same_blocks = kept_blocks;
          d[k].rebased = true;
        }
      }
      if (k == 0) {
        const long long head_tokens = std::min(t.input_tokens, target / 2);
        head_blocks = blocks ? head_tokens / bs : 0;
      }
    }
  }
  // A link to a rewritten prompt shares at most the blocks that prompt kept; the rest of the
  // sharing turn's prompt becomes its own (fresh) text. Repeated until no link changes.
  if (blocks && truncated > 0) {
    for (bool changed = true; changed;) {
      changed = false;
      for (std::size_t si = 0; si < trace.sessions.size(); ++si) {
        Session& s = trace.sessions[si];
        for (std::size_t k = 0; k < s.turns.size(); ++k) {
          Turn& t = s.turns[k];
          if (!t.prefix_parent.valid()) continue;
          const Draft& p = drafts[static_cast<std::size_t>(t.prefix_parent.session)]
                                 [static_cast<std::size_t>(t.prefix_parent.turn)];
          Draft& d = drafts[si][k];
          if (d.rebased) {
            if (p.same_blocks < d.same_blocks) {
              d.same_blocks = p.same_blocks;
              changed = true;
            }
            continue;
          }
          if (t.prefix_blocks > p.same_blocks) {
            const auto fresh = static_cast<std::uint32_t>(t.prefix_blocks - p.same_blocks);
            d.runs.insert(d.runs.begin(), BlockRun{next_id, fresh});
            next_id += fresh;
            t.prefix_blocks = static_cast<std::int32_t>(p.same_blocks);
            d.same_blocks = std::min<long long>(d.same_blocks, p.same_blocks);
            changed = true;
          }
        }
      }
    }
  }
  if (blocks) {
    for (std::size_t si = 0; si < trace.sessions.size(); ++si) {
      Session& s = trace.sessions[si];
      std::vector<BlockRun> runs;
      for (std::size_t k = 0; k < s.turns.size(); ++k) {
        Turn& t = s.turns[k];
        if (t.prefix_parent.valid() && t.prefix_blocks == 0) t.prefix_parent = TurnRef{};
        t.runs_begin = static_cast<std::uint32_t>(runs.size());
        runs.insert(runs.end(), drafts[si][k].runs.begin(), drafts[si][k].runs.end());
        t.runs_end = static_cast<std::uint32_t>(runs.size());
      }
      s.block_runs = std::move(runs);
    }
  }
  return truncated;
}

}  // namespace agentsim::wl
