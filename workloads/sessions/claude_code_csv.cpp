#include "workloads/sessions/claude_code_csv.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "workloads/sessions/block_count.hpp"

namespace agentsim::wl {
namespace {

constexpr long long kBlockTokens = 64;  // tokens per prefix block in the kv-cache-tester traces
constexpr long long kMaxRequestIndex = 1'000'000'000;

struct Row {
  long long idx = 0;
  Turn turn;
  double think_s = 0;
  long long lcp_blocks = 0;
  long long new_blocks = 0;
  std::string lcp_parent;  // "agent_path#req_idx" or empty
  int line = 0;
};

struct Group {
  std::string trace;
  std::string agent;
  std::vector<Row> rows;
};

}  // namespace

Trace read_claude_code_csv_trace(std::istream& in, const std::string& file, const ImportOptions& opt,
                                 ImportReport* report) {
  core::CsvReader csv(in, file);
  const auto c_trace = csv.column("trace_id");
  const auto c_agent = csv.column("agent_path");
  const auto c_idx = csv.column("req_idx");
  const auto c_in = csv.column("in_tokens");
  const auto c_out = csv.column("out_tokens");
  const auto c_think = csv.column("think_time_s");
  const bool has_blocks = csv.has_column("lcp_blocks") && csv.has_column("new_blocks") &&
                          csv.has_column("lcp_parent_req");
  const auto c_lcp = has_blocks ? csv.column("lcp_blocks") : 0;
  const auto c_new = has_blocks ? csv.column("new_blocks") : 0;
  const auto c_par = has_blocks ? csv.column("lcp_parent_req") : 0;
  const bool has_t = csv.has_column("t_s");
  const auto c_t = has_t ? csv.column("t_s") : 0;
  const bool has_stop = csv.has_column("stop");
  const auto c_stop = has_stop ? csv.column("stop") : 0;
  const bool has_api = csv.has_column("api_time_s");
  const auto c_api = has_api ? csv.column("api_time_s") : 0;
  const bool has_ttft = csv.has_column("ttft_s");
  const auto c_ttft = has_ttft ? csv.column("ttft_s") : 0;

  ImportReport local;
  std::vector<Group> groups;  // first-appearance order of session ids = trace order
  std::map<std::string, std::size_t> group_of;
  while (true) {
    try {
      if (!csv.next()) break;
      ++local.lines_read;
      Row r;
      r.line = csv.line();
      r.idx = csv.integer(c_idx);
      r.turn.input_tokens = csv.integer(c_in);
      r.turn.output_tokens = csv.integer(c_out);
      r.think_s = csv.number_or(c_think, 0.0);
      if (r.idx < 0 || r.idx > kMaxRequestIndex) {
        throw csv.error_at(c_idx, "expected an index in [0, " + std::to_string(kMaxRequestIndex) + "]");
      }
      if (r.turn.input_tokens <= 0) throw csv.error_at(c_in, "expected a positive token count");
      if (r.turn.output_tokens < 0) throw csv.error_at(c_out, "expected a non-negative token count");
      if (r.turn.input_tokens > kMaxTurnTokens) throw csv.error_at(c_in, "expected at most " + std::to_string(kMaxTurnTokens) + " tokens");
      if (r.turn.output_tokens > kMaxTurnTokens) throw csv.error_at(c_out, "expected at most " + std::to_string(kMaxTurnTokens) + " tokens");
      if (r.think_s < 0) throw csv.error_at(c_think, "expected a non-negative delay");
      if (has_blocks) {
        r.lcp_blocks = csv.integer(c_lcp);
        r.new_blocks = csv.integer(c_new);
        r.lcp_parent = csv.field(c_par);
        if (r.lcp_blocks < 0) throw csv.error_at(c_lcp, "expected a non-negative block count");
        if (r.new_blocks < 0) throw csv.error_at(c_new, "expected a non-negative block count");
        // The prompt's 64-token blocks: shared prefix plus new ones cannot exceed its length.
        const long long max_blocks = (r.turn.input_tokens + kBlockTokens - 1) / kBlockTokens;
        if (r.lcp_blocks > max_blocks || r.new_blocks > max_blocks - r.lcp_blocks) {
          throw csv.error_at(c_new, "lcp_blocks + new_blocks = " + std::to_string(r.lcp_blocks + r.new_blocks) +
                                        " blocks of 64 tokens exceed in_tokens " + std::to_string(r.turn.input_tokens));
        }
        if (r.lcp_blocks > 0 && r.lcp_parent.find('#') == std::string::npos) {
          throw csv.error_at(c_par, "expected agent_path#req_idx of the prefix parent");
        }
        const std::string bad = block_count_mismatch(r.turn.input_tokens, r.lcp_blocks + r.new_blocks, 64);
        if (!bad.empty()) throw csv.error_at(c_new, bad + " (lcp_blocks + new_blocks)");
      }
      if (has_t) r.turn.t_s = csv.number_or(c_t, -1.0);
      if (has_stop) r.turn.stop = parse_stop_reason(csv.field(c_stop));
      if (has_api) r.turn.api_time_s = csv.number_or(c_api, -1.0);
      if (has_ttft) r.turn.ttft_s = csv.number_or(c_ttft, -1.0);
      const std::string id = csv.field(c_trace) + "/" + csv.field(c_agent);
      auto [it, inserted] = group_of.try_emplace(id, groups.size());
      if (inserted) groups.push_back(Group{csv.field(c_trace), csv.field(c_agent), {}});
      groups[it->second].rows.push_back(std::move(r));
    } catch (const core::Error& e) {
      if (!opt.skip_bad) throw;
      if (local.lines_skipped++ == 0) local.first_error = e.what();
    }
  }

  Trace trace;
  trace.name = file;
  trace.block_size_tokens = has_blocks ? static_cast<int>(kBlockTokens) : 0;
  trace.sessions.reserve(groups.size());
  // (session id, req_idx) -> turn, to resolve lcp_parent_req.
  std::map<std::pair<std::string, long long>, TurnRef> turn_of;
  std::map<std::string, std::int32_t> root_of_trace;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    auto& rs = groups[g].rows;
    std::stable_sort(rs.begin(), rs.end(), [](const Row& a, const Row& b) { return a.idx < b.idx; });
    for (std::size_t k = 1; k < rs.size(); ++k) {
      if (rs[k].idx == rs[k - 1].idx) {
        const int second = std::max(rs[k].line, rs[k - 1].line);
        throw core::Error(core::SourceLocation{file, second, "req_idx"},
                          "duplicate req_idx " + std::to_string(rs[k].idx) + " of " + groups[g].trace + "/" +
                              groups[g].agent + ": expected one row per request");
      }
    }
    Session s;
    s.id = groups[g].trace + "/" + groups[g].agent;
    const auto si = static_cast<std::int32_t>(g);
    for (std::size_t k = 0; k < rs.size(); ++k) {
      Turn t = rs[k].turn;
      // A turn that produced no output still occupies a prefill; keep it with one token.
      t.output_tokens = std::max<long long>(t.output_tokens, 1);
      t.gap_after_s = (k + 1 < rs.size()) ? rs[k + 1].think_s : 0.0;
      s.turns.push_back(t);
      turn_of[{s.id, rs[k].idx}] = TurnRef{si, static_cast<std::int32_t>(k)};
    }
    annotate_turns(s);
    auto [rit, first] = root_of_trace.try_emplace(groups[g].trace, si);
    s.root = rit->second;
    if (!first) {
      // A sub-agent "a/b/agent_x:T" hangs under "a/b"; its spawn point is the parent's
      // n-th missing req_idx (the sub-agent markers take indices but are not rows).
      const auto slash = groups[g].agent.rfind('/');
      const std::string parent_id =
          groups[g].trace + "/" + (slash == std::string::npos ? "root" : groups[g].agent.substr(0, slash));
      auto pit = group_of.find(parent_id);
      // A parent without rows of its own (or only later ones) would leave the sub-agent dangling.
      if (pit == group_of.end() || pit->second >= g) {
        const int first_line = rs.empty() ? 0 : std::min_element(rs.begin(), rs.end(), [](const Row& a, const Row& b) {
                                                  return a.line < b.line;
                                                })->line;
        throw core::Error(core::SourceLocation{file, first_line, "agent_path"},
                          "parent agent '" + parent_id + "' has no earlier rows: expected a sub-agent's parent to appear first");
      }
      s.spawn.parent_session = static_cast<std::int32_t>(pit->second);
    }
    if (!rs.empty() && rs.front().turn.t_s >= 0) s.start_s = 0;
    trace.sessions.push_back(std::move(s));
  }

  // Spawn points: children of a parent take its missing indices in order of appearance.
  std::map<std::int32_t, std::vector<std::int32_t>> children;
  for (std::size_t g = 0; g < trace.sessions.size(); ++g) {
    if (trace.sessions[g].spawn.parent_session >= 0) {
      children[trace.sessions[g].spawn.parent_session].push_back(static_cast<std::int32_t>(g));
    }
  }
  for (const auto& [p, kids] : children) {
    const auto& prs = groups[static_cast<std::size_t>(p)].rows;
    std::vector<long long> missing;
    long long expect = 0;
    for (const auto& r : prs) {
      // Only the first kids.size() gaps are used; a huge req_idx must not enumerate the rest.
      for (; expect < r.idx && missing.size() < kids.size(); ++expect) missing.push_back(expect);
      expect = std::max(expect, r.idx + 1);
    }
    for (std::size_t c = 0; c < kids.size(); ++c) {
      Session& child = trace.sessions[static_cast<std::size_t>(kids[c])];
      std::int32_t after = static_cast<std::int32_t>(prs.size()) - 1;
      if (c < missing.size()) {
        after = static_cast<std::int32_t>(
                    std::lower_bound(prs.begin(), prs.end(), missing[c],
                                     [](const Row& r, long long v) { return r.idx < v; }) -
                    prs.begin()) -
                1;
      }
      child.spawn.after_turn = after;
      const Session& parent = trace.sessions[static_cast<std::size_t>(p)];
      if (after >= 0) {
        const Turn& pt = parent.turns[static_cast<std::size_t>(after)];
        child.start_s = parent.start_s + std::max(0.0, pt.t_s);
      }
    }
  }

  if (has_blocks) {
    std::map<std::string, std::uint64_t> next_id;  // fresh ids per trace, in row order
    std::vector<std::pair<int, TurnRef>> by_line;
    for (std::size_t g = 0; g < groups.size(); ++g) {
      for (std::size_t k = 0; k < groups[g].rows.size(); ++k) {
        by_line.emplace_back(groups[g].rows[k].line,
                             TurnRef{static_cast<std::int32_t>(g), static_cast<std::int32_t>(k)});
      }
    }
    std::sort(by_line.begin(), by_line.end(),
              [](const auto& a, const auto& b) { return a.first < b.first; });
    // Prompt blocks of each turn once its row is processed (-1 before): a prefix parent must
    // be an earlier row, so links cannot point forward or at themselves.
    std::vector<std::vector<long long>> blocks_of(groups.size());
    for (std::size_t g = 0; g < groups.size(); ++g) blocks_of[g].assign(groups[g].rows.size(), -1);
    for (const auto& [line, ref] : by_line) {
      const Row& r = groups[static_cast<std::size_t>(ref.session)].rows[static_cast<std::size_t>(ref.turn)];
      Session& s = trace.sessions[static_cast<std::size_t>(ref.session)];
      Turn& t = s.turns[static_cast<std::size_t>(ref.turn)];
      if (r.lcp_blocks > 0) {
        const auto hash = r.lcp_parent.rfind('#');
        const std::string pid = groups[static_cast<std::size_t>(ref.session)].trace + "/" + r.lcp_parent.substr(0, hash);
        long long pidx = -1;
        try {
          pidx = std::stoll(r.lcp_parent.substr(hash + 1));
        } catch (const std::exception&) {
          pidx = -1;
        }
        auto it = turn_of.find({pid, pidx});
        if (it == turn_of.end() ||
            blocks_of[static_cast<std::size_t>(it->second.session)][static_cast<std::size_t>(it->second.turn)] < 0) {
          throw core::Error(core::SourceLocation{file, line, "lcp_parent_req"},
                            "prefix parent '" + r.lcp_parent + "' is not an earlier request of this trace");
        }
        const long long parent_blocks =
            blocks_of[static_cast<std::size_t>(it->second.session)][static_cast<std::size_t>(it->second.turn)];
        if (r.lcp_blocks > parent_blocks) {
          throw core::Error(core::SourceLocation{file, line, "lcp_blocks"},
                            "shares " + std::to_string(r.lcp_blocks) + " blocks but prefix parent '" + r.lcp_parent +
                                "' has only " + std::to_string(parent_blocks));
        }
        t.prefix_parent = it->second;
        t.prefix_blocks = static_cast<std::int32_t>(r.lcp_blocks);
      }
      blocks_of[static_cast<std::size_t>(ref.session)][static_cast<std::size_t>(ref.turn)] =
          (r.lcp_blocks > 0 ? r.lcp_blocks : 0) + r.new_blocks;
      std::uint64_t& next = next_id[groups[static_cast<std::size_t>(ref.session)].trace];
      t.runs_begin = static_cast<std::uint32_t>(s.block_runs.size());
      if (r.new_blocks > 0) {
        s.block_runs.push_back(BlockRun{next, static_cast<std::uint32_t>(r.new_blocks)});
        next += static_cast<std::uint64_t>(r.new_blocks);
      }
      t.runs_end = static_cast<std::uint32_t>(s.block_runs.size());
    }
  }
  if (report) *report = local;
  return trace;
}

Trace load_claude_code_csv_trace(const std::string& path, const ImportOptions& opt, ImportReport* report) {
  std::ifstream in = core::open_input(path, "trace file");
  return read_claude_code_csv_trace(in, path, opt, report);
}

std::vector<Session> read_claude_code_csv(std::istream& in, const std::string& file) {
  return read_claude_code_csv_trace(in, file).sessions;
}

std::vector<Session> load_claude_code_csv(const std::string& path) {
  return load_claude_code_csv_trace(path).sessions;
}

}  // namespace agentsim::wl
