#include "workloads/sessions/trace_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iterator>
#include <map>

namespace agentsim::wl {
namespace {

double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - static_cast<double>(lo));
}

// Seen block ids per id space as disjoint, merged intervals [first, end): traces hand
// out ids in runs, so this stays tiny where a hash set would hold millions of ids.
class BlockSet {
 public:
  // Inserts [first, first + count); returns how many leading ids were already present.
  std::uint64_t insert_run(std::int64_t space, std::uint64_t first, std::uint64_t count) {
    auto& iv = spaces_[space];
    std::uint64_t present = 0;
    auto it = iv.upper_bound(first);
    if (it != iv.begin()) {
      auto prev = std::prev(it);
      if (prev->second > first) present = std::min(prev->second, first + count) - first;
    }
    std::uint64_t lo = first, hi = first + count;
    it = iv.upper_bound(first);
    if (it != iv.begin() && std::prev(it)->second >= lo) --it;
    while (it != iv.end() && it->first <= hi) {
      lo = std::min(lo, it->first);
      hi = std::max(hi, it->second);
      it = iv.erase(it);
    }
    iv.emplace(lo, hi);
    return present;
  }
  std::uint64_t size() const {
    std::uint64_t n = 0;
    for (const auto& [space, iv] : spaces_) {
      for (const auto& [a, b] : iv) n += b - a;
    }
    return n;
  }

 private:
  std::map<std::int64_t, std::map<std::uint64_t, std::uint64_t>> spaces_;
};

// Hit blocks of one prompt: the parent's shared prefix was seen by construction; then
// leading new blocks already seen. Inserts the prompt's new blocks.
long long leading_hits(const Session& s, const Turn& t, std::int64_t space, bool prefix_counts, BlockSet& seen) {
  long long hit = prefix_counts ? t.prefix_blocks : 0;
  bool leading = prefix_counts || t.prefix_blocks == 0;
  for (auto i = t.runs_begin; i < t.runs_end; ++i) {
    const BlockRun& r = s.block_runs[i];
    const std::uint64_t present = seen.insert_run(space, r.first, r.count);
    if (leading) hit += static_cast<long long>(present);
    if (present < r.count) leading = false;
  }
  return hit;
}

}  // namespace

Distribution distribution_of(std::vector<double>& v) {
  Distribution d;
  d.n = static_cast<long long>(v.size());
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  double sum = 0;
  for (double x : v) sum += x;
  d.mean = sum / static_cast<double>(v.size());
  d.p50 = quantile(v, 0.5);
  d.min = v.front();
  d.p90 = quantile(v, 0.9);
  d.p95 = quantile(v, 0.95);
  d.p99 = quantile(v, 0.99);
  d.max = v.back();
  return d;
}

TraceStats compute_stats(const Trace& trace) {
  TraceStats st;
  std::vector<double> in, out, gap, tool, human, tps;
  BlockSet seen_session, seen_global;
  long long hit_s_tokens = 0, hit_g_tokens = 0;
  const auto bs = static_cast<long long>(trace.block_size_tokens);
  for (std::size_t si = 0; si < trace.sessions.size(); ++si) {
    const Session& s = trace.sessions[si];
    ++st.sessions;
    if (s.spawn.parent_session >= 0) ++st.subagents; else ++st.root_sessions;
    tps.push_back(static_cast<double>(s.turns.size()));
    const std::int64_t tree = s.root >= 0 ? s.root : static_cast<std::int64_t>(si);
    for (const Turn& t : s.turns) {
      ++st.turns;
      st.prefix_breaks += t.prefix_break ? 1 : 0;
      st.truncated += t.truncated ? 1 : 0;
      st.input_tokens += t.input_tokens;
      st.output_tokens += t.output_tokens;
      in.push_back(static_cast<double>(t.input_tokens));
      out.push_back(static_cast<double>(t.output_tokens));
      if (t.gap_kind != GapKind::kNone) {
        gap.push_back(t.gap_after_s);
        (t.gap_kind == GapKind::kHuman ? human : tool).push_back(t.gap_after_s);
      }
      if (s.start_s + std::max(0.0, t.t_s) > st.span_s && t.t_s >= 0) st.span_s = s.start_s + t.t_s;
      if (bs > 0) {
        // A prefix parent in another session tree counts for the global rate only.
        const bool same_tree = t.prefix_parent.valid() &&
                               trace.sessions[static_cast<std::size_t>(t.prefix_parent.session)].root == s.root;
        const long long hs = leading_hits(s, t, tree, same_tree, seen_session);
        const long long hg = leading_hits(s, t, trace.global_block_ids ? 0 : tree, true, seen_global);
        hit_s_tokens += std::min(hs * bs, t.input_tokens);
        hit_g_tokens += std::min(hg * bs, t.input_tokens);
      }
    }
  }
  st.input = distribution_of(in);
  st.output = distribution_of(out);
  st.gap = distribution_of(gap);
  st.tool_gap = distribution_of(tool);
  st.human_gap = distribution_of(human);
  st.turns_per_session = distribution_of(tps);
  if (bs > 0 && st.input_tokens > 0) {
    st.hit_in_session = static_cast<double>(hit_s_tokens) / static_cast<double>(st.input_tokens);
    st.hit_global = static_cast<double>(hit_g_tokens) / static_cast<double>(st.input_tokens);
    st.unique_blocks = static_cast<long long>(seen_global.size());
  }
  return st;
}

namespace {
std::string dist_line(const char* name, const Distribution& d) {
  char buf[256];
  std::snprintf(buf, sizeof buf, "%-18s n=%lld mean=%.1f min=%.1f p50=%.1f p90=%.1f p95=%.1f p99=%.1f max=%.1f\n", name,
                d.n, d.mean, d.min, d.p50, d.p90, d.p95, d.p99, d.max);
  return buf;
}
std::string dist_json(const Distribution& d) {
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "{\"n\": %lld, \"mean\": %.6g, \"min\": %.6g, \"p50\": %.6g, \"p90\": %.6g, \"p95\": %.6g, \"p99\": %.6g, "
                "\"max\": %.6g}",
                d.n, d.mean, d.min, d.p50, d.p90, d.p95, d.p99, d.max);
  return buf;
}
std::string pct(double x) {
  if (x < 0) return "n/a (no block data)";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f%%", 100.0 * x);
  return buf;
}
}  // namespace

std::string format_stats(const TraceStats& s) {
  char buf[512];
  std::string r;
  std::snprintf(buf, sizeof buf,
                "sessions:          %lld (%lld root, %lld sub-agents)\nturns (requests):  %lld\n"
                "input tokens:      %lld\noutput tokens:     %lld\nprefix breaks:     %lld\n"
                "truncated turns:   %lld (cut to the context limit)\nspan:              %.1f s\n",
                s.sessions, s.root_sessions, s.subagents, s.turns, s.input_tokens, s.output_tokens, s.prefix_breaks,
                s.truncated, s.span_s);
  r += buf;
  r += dist_line("input/turn", s.input);
  r += dist_line("output/turn", s.output);
  r += dist_line("gap (s)", s.gap);
  r += dist_line("tool gap (s)", s.tool_gap);
  r += dist_line("human gap (s)", s.human_gap);
  r += dist_line("turns/session", s.turns_per_session);
  r += "ideal hit rate:    in-session " + pct(s.hit_in_session) + ", global " + pct(s.hit_global) + "\n";
  return r;
}

std::string stats_json(const TraceStats& s) {
  char buf[640];
  std::snprintf(buf, sizeof buf,
                "{\"sessions\": %lld, \"root_sessions\": %lld, \"subagents\": %lld, \"turns\": %lld, "
                "\"input_tokens\": %lld, \"output_tokens\": %lld, \"prefix_breaks\": %lld, \"truncated\": %lld, "
                "\"span_s\": %.6g, \"hit_in_session\": %.6g, \"hit_global\": %.6g, \"unique_blocks\": %lld",
                s.sessions, s.root_sessions, s.subagents, s.turns, s.input_tokens, s.output_tokens, s.prefix_breaks,
                s.truncated, s.span_s, s.hit_in_session, s.hit_global, s.unique_blocks);
  std::string r = buf;
  r += ", \"input\": " + dist_json(s.input) + ", \"output\": " + dist_json(s.output) + ", \"gap\": " +
       dist_json(s.gap) + ", \"tool_gap\": " + dist_json(s.tool_gap) + ", \"human_gap\": " + dist_json(s.human_gap) +
       ", \"turns_per_session\": " + dist_json(s.turns_per_session) + "}\n";
  return r;
}

}  // namespace agentsim::wl
