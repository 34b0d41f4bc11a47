#include "workloads/sessions/trace_jsonl.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "workloads/sessions/block_count.hpp"

namespace agentsim::wl {
using nlohmann::json;

namespace {

// Names come from user files (a CSV's trace_id, a file name) and need not be UTF-8; JSON
// requires it, so invalid bytes are written as U+FFFD instead of throwing mid-file.
std::string dump_line(const json& j) { return j.dump(-1, ' ', false, json::error_handler_t::replace); }

GapKind parse_gap(const std::string& s) {
  if (s == "tool") return GapKind::kTool;
  if (s == "human") return GapKind::kHuman;
  return GapKind::kNone;
}
}  // namespace

void write_trace_jsonl(const Trace& trace, std::ostream& out) {
  json h = {{"format", "agentsim-trace"}, {"version", 1}, {"name", trace.name},
            {"block_size", trace.block_size_tokens}, {"block_ids", trace.global_block_ids ? "global" : "per-tree"}};
  if (trace.global_block_ids && trace.replay_block_ids_from != Trace::kAllBlockIdsShared) {
    h["replay_block_ids_from"] = trace.replay_block_ids_from;
  }
  out << dump_line(h) << '\n';
  for (const auto& s : trace.sessions) {
    json turns = json::array();
    for (const auto& t : s.turns) {
      json j = {{"in", t.input_tokens}, {"out", t.output_tokens}, {"gap_s", t.gap_after_s},
                {"gap", to_string(t.gap_kind)}};
      if (t.stop != StopReason::kUnknown) j["stop"] = to_string(t.stop);
      if (t.prefix_break) j["break"] = true;
      if (t.prefix_parent.valid()) j["prefix"] = {t.prefix_parent.session, t.prefix_parent.turn, t.prefix_blocks};
      if (t.runs_end > t.runs_begin) {
        json runs = json::array();
        for (auto i = t.runs_begin; i < t.runs_end; ++i) runs.push_back({s.block_runs[i].first, s.block_runs[i].count});
        j["new"] = std::move(runs);
      }
      if (t.t_s >= 0) j["t_s"] = t.t_s;
      if (t.api_time_s >= 0) j["api_s"] = t.api_time_s;
      if (t.ttft_s >= 0) j["ttft_s"] = t.ttft_s;
      turns.push_back(std::move(j));
    }
    json js = {{"id", s.id}, {"root", s.root}, {"start_s", s.start_s}, {"turns", std::move(turns)}};
    if (s.spawn.parent_session >= 0) {
      js["spawn"] = {{"parent", s.spawn.parent_session}, {"after_turn", s.spawn.after_turn}, {"async", s.spawn.async}};
    }
    out << dump_line(js) << '\n';
  }
}

std::string trace_jsonl(const Trace& trace) {
  std::ostringstream o;
  write_trace_jsonl(trace, o);
  return o.str();
}

Trace read_trace_jsonl(std::istream& in, const std::string& file, const ImportOptions& opt, ImportReport* report) {
  Trace trace;
  ImportReport local;
  std::string text;
  int line = 0;
  bool header = false;
  std::set<std::string> ids;
  std::vector<std::vector<long long>> blocks_of;  // per session, per turn: prompt block count
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string key;
    auto fail = [&](const std::string& what) { return core::Error(core::SourceLocation{file, line, key}, what); };
    // An integer field in [lo, hi]; anything else names what was expected.
    auto integer = [&](const json& v, long long lo, long long hi) {
      const std::string range = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
      if (!v.is_number_integer()) throw fail("expected " + range + ", found " + v.dump());
      const long long x = v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi)
                              ? hi + 1
                              : v.get<long long>();
      if (x < lo || x > hi) throw fail("expected " + range + ", found " + v.dump());
      return x;
    };
    auto field = [&](const json& obj, const char* name) -> const json& {
      auto it = obj.find(name);
      if (it == obj.end()) throw fail("missing required field");
      return *it;
    };
    try {
      json j;
      try {
        j = json::parse(text);
      } catch (const json::parse_error& e) {
        throw fail(std::string("invalid JSON: ") + e.what());
      }
      if (!header) {
        key = "format";
        if (!j.is_object() || j.value("format", "") != "agentsim-trace") throw fail("expected \"agentsim-trace\"");
        key = "version";
        if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<long long>() != 1) {
          throw fail("expected 1");
        }
        trace.name = j.value("name", file);
        key = "block_size";
        if (j.contains("block_size")) trace.block_size_tokens = static_cast<int>(integer(j["block_size"], 0, kMaxBlockSizeTokens));
        trace.global_block_ids = j.value("block_ids", "per-tree") == "global";
        key = "replay_block_ids_from";
        if (j.contains("replay_block_ids_from")) {
          if (!trace.global_block_ids) throw fail("expected only with \"block_ids\": \"global\"");
          trace.replay_block_ids_from =
              static_cast<std::uint64_t>(integer(j["replay_block_ids_from"], 0, std::numeric_limits<long long>::max()));
        }
        header = true;
        continue;
      }
      ++local.lines_read;
      if (!j.is_object()) throw fail("expected a JSON object (one session)");
      const auto index = static_cast<std::int32_t>(trace.sessions.size());
      Session s;
      key = "id";
      const json& id = field(j, "id");
      if (!id.is_string()) throw fail("expected a string, found " + id.dump());
      s.id = id.get<std::string>();
      if (!ids.insert(s.id).second) throw fail("duplicate session id '" + s.id + "': expected unique ids");
      key = "root";
      s.root = j.contains("root") ? static_cast<std::int32_t>(integer(j["root"], 0, index)) : index;
      if (s.root < index && trace.sessions[static_cast<std::size_t>(s.root)].root != s.root) {
        throw fail("expected the index of the record itself or of an earlier root record");
      }
      key = "start_s";
      s.start_s = j.value("start_s", 0.0);
      if (!(s.start_s >= 0)) throw fail("expected a non-negative time");
      if (!std::isfinite(s.start_s)) throw fail("expected a finite time");
      if (auto sp = j.find("spawn"); sp != j.end()) {
        // Only an earlier session can be a parent: this rules out dangling and cyclic links.
        key = "spawn.parent";
        if (index == 0) throw fail("expected no spawn link on the trace's first record (a parent must come before it)");
        s.spawn.parent_session = static_cast<std::int32_t>(integer(field(*sp, "parent"), 0, index - 1));
        key = "spawn.after_turn";
        const auto parent_turns = static_cast<long long>(blocks_of[static_cast<std::size_t>(s.spawn.parent_session)].size());
        s.spawn.after_turn = static_cast<std::int32_t>(integer(field(*sp, "after_turn"), -1, parent_turns - 1));
        s.spawn.async = sp->value("async", false);
      }
      key = "turns";
      const json& turns = field(j, "turns");
      if (!turns.is_array()) throw fail("expected a list");
      if (turns.empty()) throw fail("expected at least one turn (an empty session)");
      std::vector<long long> blocks;
      for (std::size_t k = 0; k < turns.size(); ++k) {
        const json& tj = turns[k];
        const std::string base = "turns[" + std::to_string(k) + "].";
        Turn t;
        key = base + "in";
        t.input_tokens = integer(field(tj, "in"), 1, kMaxTurnTokens);
        key = base + "out";
        t.output_tokens = integer(field(tj, "out"), 1, kMaxTurnTokens);
        key = base + "gap_s";
        t.gap_after_s = tj.value("gap_s", 0.0);
        if (!(t.gap_after_s >= 0) || !std::isfinite(t.gap_after_s)) throw fail("expected a finite, non-negative delay");
        key = base + "gap";
        t.gap_kind = parse_gap(tj.value("gap", "none"));
        t.stop = parse_stop_reason(tj.value("stop", ""));
        t.prefix_break = tj.value("break", false);
        long long n_blocks = 0;
        if (auto p = tj.find("prefix"); p != tj.end()) {
          key = base + "prefix";
          if (!p->is_array() || p->size() != 3) throw fail("expected [session, turn, blocks]");
          // The parent is an earlier turn: of an earlier session, or of this one.
          const auto ps = static_cast<std::int32_t>(integer((*p)[0], 0, index));
          const std::vector<long long>& parent = ps == index ? blocks : blocks_of[static_cast<std::size_t>(ps)];
          if (parent.empty()) throw fail("expected an earlier turn as prefix parent; session " + std::to_string(ps) + " has none yet");
          const auto pt = static_cast<std::int32_t>(integer((*p)[1], 0, static_cast<long long>(parent.size()) - 1));
          t.prefix_parent = TurnRef{ps, pt};
          t.prefix_blocks = static_cast<std::int32_t>(integer((*p)[2], 0, parent[static_cast<std::size_t>(pt)]));
          n_blocks = t.prefix_blocks;
        }
        t.runs_begin = static_cast<std::uint32_t>(s.block_runs.size());
        if (auto n = tj.find("new"); n != tj.end()) {
          key = base + "new";
          if (!n->is_array()) throw fail("expected [first_id, count] runs");
          for (const auto& r : *n) {
            if (!r.is_array() || r.size() != 2 || !r[0].is_number_unsigned()) throw fail("expected [first_id, count] runs");
            const auto count = static_cast<std::uint32_t>(integer(r[1], 1, 1'000'000'000));
            s.block_runs.push_back(BlockRun{r[0].get<std::uint64_t>(), count});
            n_blocks += count;
          }
        }
        t.runs_end = static_cast<std::uint32_t>(s.block_runs.size());
        if (n_blocks > 0 && trace.block_size_tokens == 0) throw fail("block data in a trace whose header has block_size 0");
        if (trace.block_size_tokens > 0) {
          key = base + "new";
          const std::string bad = block_count_mismatch(t.input_tokens, n_blocks, trace.block_size_tokens);
          if (!bad.empty()) throw fail(bad);
        }
        t.t_s = tj.value("t_s", -1.0);
        t.api_time_s = tj.value("api_s", -1.0);
        t.ttft_s = tj.value("ttft_s", -1.0);
        key = base + "t_s";
        if (!std::isfinite(t.t_s) || !std::isfinite(t.api_time_s) || !std::isfinite(t.ttft_s)) {
          throw fail("recorded times must be finite");
        }
        s.turns.push_back(t);
        blocks.push_back(n_blocks);
      }
      trace.sessions.push_back(std::move(s));
      blocks_of.push_back(std::move(blocks));
    } catch (const json::exception& e) {
      const std::string what = e.id == 403 ? "missing required field" : "wrong type";
      if (!opt.skip_bad) throw fail(what);
      if (local.lines_skipped++ == 0) local.first_error = fail(what).what();
    } catch (const core::Error& e) {
      if (!opt.skip_bad || !header) throw;
      if (local.lines_skipped++ == 0) local.first_error = e.what();
    }
  }
  if (!header) throw core::Error(core::SourceLocation{file, 0, ""}, "empty trace: no agentsim-trace header line");
  if (report) *report = local;
  return trace;
}

Trace load_trace_jsonl(const std::string& path, const ImportOptions& opt, ImportReport* report) {
  std::ifstream in = core::open_input(path, "trace file");
  return read_trace_jsonl(in, path, opt, report);
}

}  // namespace agentsim::wl
