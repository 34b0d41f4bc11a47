#include "workloads/trace_jsonl.hpp"

#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

namespace agentsim::wl {
using nlohmann::json;

namespace {
std::string too_many_tokens() { return "expected at most " + std::to_string(kMaxTurnTokens) + " tokens"; }

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
  // Prompt length in blocks of every turn read so far, to check prefix links before they are followed.
  std::vector<std::vector<long long>> prompt_blocks;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string key;
    auto fail = [&](const std::string& what) { return core::Error(core::SourceLocation{file, line, key}, what); };
    // An integer in [lo, hi]: a float such as 1e108 would be cast to int (undefined behaviour).
    auto integer = [&](const json& v, long long lo, long long hi) -> long long {
      const bool ok = v.is_number_integer() &&
                      !(v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(hi));
      const long long x = ok ? v.get<long long>() : 0;
      if (!ok || x < lo || x > hi) throw fail("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
      return x;
    };
    constexpr long long kI32 = std::numeric_limits<std::int32_t>::max();
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
        const long long bs = j.contains("block_size") ? integer(j["block_size"], 0, kMaxBlockSizeTokens) : 0;
        trace.block_size_tokens = static_cast<int>(bs);
        trace.global_block_ids = j.value("block_ids", "per-tree") == "global";
        header = true;
        continue;
      }
      ++local.lines_read;
      Session s;
      // Every index must point backwards (or at this session), so links can neither dangle nor cycle.
      const auto self = static_cast<std::int32_t>(trace.sessions.size());
      key = "id";
      s.id = j.at("id").get<std::string>();
      key = "root";
      s.root = j.contains("root") ? static_cast<std::int32_t>(integer(j["root"], 0, kI32)) : self;
      if (s.root < 0 || s.root > self || (s.root < self && trace.sessions[static_cast<std::size_t>(s.root)].root != s.root)) {
        throw fail("expected the index of this session or of an earlier root session");
      }
      key = "start_s";
      s.start_s = j.value("start_s", 0.0);
      if (!std::isfinite(s.start_s)) throw fail("expected a finite time");
      if (auto sp = j.find("spawn"); sp != j.end()) {
        key = "spawn";
        s.spawn.parent_session = static_cast<std::int32_t>(integer(sp->at("parent"), 0, kI32));
        s.spawn.after_turn = static_cast<std::int32_t>(integer(sp->at("after_turn"), -1, kI32));
        s.spawn.async = sp->value("async", false);
        if (s.spawn.parent_session < 0 || s.spawn.parent_session >= self) throw fail("parent must be an earlier session");
        const auto parent_turns = static_cast<std::int32_t>(trace.sessions[static_cast<std::size_t>(s.spawn.parent_session)].turns.size());
        if (s.spawn.after_turn < -1 || s.spawn.after_turn >= parent_turns) {
          throw fail("after_turn must be -1 or a turn of the parent (it has " + std::to_string(parent_turns) + ")");
        }
      }
      std::vector<long long> blocks_of_turn;
      key = "turns";
      const json& turns = j.at("turns");
      if (!turns.is_array()) throw fail("expected a list");
      for (std::size_t k = 0; k < turns.size(); ++k) {
        const json& tj = turns[k];
        const std::string base = "turns[" + std::to_string(k) + "].";
        Turn t;
        key = base + "in";
        if (tj.at("in").is_number_float()) throw fail("expected an integer");  // never cast a float
        t.input_tokens = tj.at("in").get<long long>();
        if (t.input_tokens <= 0) throw fail("expected a positive token count");
        if (t.input_tokens > kMaxTurnTokens) throw fail(too_many_tokens());
        key = base + "out";
        if (tj.at("out").is_number_float()) throw fail("expected an integer");  // never cast a float
        t.output_tokens = tj.at("out").get<long long>();
        if (t.output_tokens < 1) throw fail("expected a positive token count");
        if (t.output_tokens > kMaxTurnTokens) throw fail(too_many_tokens());
        key = base + "gap_s";
        t.gap_after_s = tj.value("gap_s", 0.0);
        if (!(t.gap_after_s >= 0) || !std::isfinite(t.gap_after_s)) throw fail("expected a finite, non-negative delay");
        key = base + "gap";
        t.gap_kind = parse_gap(tj.value("gap", "none"));
        t.stop = parse_stop_reason(tj.value("stop", ""));
        t.prefix_break = tj.value("break", false);
        if (auto p = tj.find("prefix"); p != tj.end()) {
          key = base + "prefix";
          if (!p->is_array() || p->size() != 3) throw fail("expected [session, turn, blocks]");
          t.prefix_parent = TurnRef{static_cast<std::int32_t>(integer((*p)[0], -kI32, kI32)),
                                    static_cast<std::int32_t>(integer((*p)[1], -kI32, kI32))};
          t.prefix_blocks = static_cast<std::int32_t>(integer((*p)[2], -kI32, kI32));
          const auto ps = t.prefix_parent.session, pt = t.prefix_parent.turn;
          if (ps < 0 || ps > self) throw fail("prefix parent must be an earlier session or this one");
          const auto& counts = ps == self ? blocks_of_turn : prompt_blocks[static_cast<std::size_t>(ps)];
          if (pt < 0 || static_cast<std::size_t>(pt) >= counts.size()) {
            throw fail("prefix parent turn must be an earlier turn (that session has " + std::to_string(counts.size()) + ")");
          }
          if (t.prefix_blocks < 0 || t.prefix_blocks > counts[static_cast<std::size_t>(pt)]) {
            throw fail("prefix shares " + std::to_string(t.prefix_blocks) + " blocks but its parent's prompt has " +
                       std::to_string(counts[static_cast<std::size_t>(pt)]));
          }
        }
        t.runs_begin = static_cast<std::uint32_t>(s.block_runs.size());
        if (auto n = tj.find("new"); n != tj.end()) {
          key = base + "new";
          for (const auto& r : *n) {
            if (!r.is_array() || r.size() != 2) throw fail("expected [first_id, count] runs");
            if (!r[0].is_number_unsigned()) throw fail("expected a non-negative integer block id");
            s.block_runs.push_back(BlockRun{r[0].get<std::uint64_t>(),
                                            static_cast<std::uint32_t>(integer(r[1], 0, std::numeric_limits<std::uint32_t>::max()))});
          }
        }
        t.runs_end = static_cast<std::uint32_t>(s.block_runs.size());
        long long blocks = t.prefix_parent.valid() ? t.prefix_blocks : 0;
        blocks += s.new_blocks(t);
        const long long bs = trace.block_size_tokens;
        if (blocks > 0 && bs == 0) throw fail("block data in a trace whose header has block_size 0");
        if (bs > 0 && blocks > (t.input_tokens + bs - 1) / bs) {
          throw fail(std::to_string(blocks) + " blocks of " + std::to_string(bs) + " tokens exceed the prompt's " +
                     std::to_string(t.input_tokens) + " tokens");
        }
        blocks_of_turn.push_back(blocks);
        t.t_s = tj.value("t_s", -1.0);
        t.api_time_s = tj.value("api_s", -1.0);
        t.ttft_s = tj.value("ttft_s", -1.0);
        key = base + "t_s";
        if (!std::isfinite(t.t_s) || !std::isfinite(t.api_time_s) || !std::isfinite(t.ttft_s)) {
          throw fail("recorded times must be finite");
        }
        s.turns.push_back(t);
      }
      prompt_blocks.push_back(std::move(blocks_of_turn));
      trace.sessions.push_back(std::move(s));
    } catch (const json::exception& e) {
      if (!opt.skip_bad) throw fail(e.id == 403 ? "missing required field" : "wrong type");
      if (local.lines_skipped++ == 0) local.first_error = fail("malformed").what();
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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::Error(core::SourceLocation{path, 0, ""}, "cannot open trace file");
  return read_trace_jsonl(in, path, opt, report);
}

}  // namespace agentsim::wl
