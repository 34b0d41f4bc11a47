#include "workloads/trace_jsonl.hpp"

#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"

namespace agentsim::wl {
using nlohmann::json;

namespace {
GapKind parse_gap(const std::string& s) {
  if (s == "tool") return GapKind::kTool;
  if (s == "human") return GapKind::kHuman;
  return GapKind::kNone;
}
}  // namespace

void write_trace_jsonl(const Trace& trace, std::ostream& out) {
  json h = {{"format", "agentsim-trace"}, {"version", 1}, {"name", trace.name},
            {"block_size", trace.block_size_tokens}, {"block_ids", trace.global_block_ids ? "global" : "per-tree"}};
  out << h.dump() << '\n';
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
    out << js.dump() << '\n';
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
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    std::string key;
    auto fail = [&](const std::string& what) { return core::Error(core::SourceLocation{file, line, key}, what); };
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
        if (j.value("version", 0) != 1) throw fail("expected 1");
        trace.name = j.value("name", file);
        trace.block_size_tokens = j.value("block_size", 0);
        trace.global_block_ids = j.value("block_ids", "per-tree") == "global";
        header = true;
        continue;
      }
      ++local.lines_read;
      Session s;
      key = "id";
      s.id = j.at("id").get<std::string>();
      key = "root";
      s.root = j.value("root", static_cast<std::int32_t>(trace.sessions.size()));
      key = "start_s";
      s.start_s = j.value("start_s", 0.0);
      if (auto sp = j.find("spawn"); sp != j.end()) {
        key = "spawn";
        s.spawn.parent_session = sp->at("parent").get<std::int32_t>();
        s.spawn.after_turn = sp->at("after_turn").get<std::int32_t>();
        s.spawn.async = sp->value("async", false);
      }
      key = "turns";
      const json& turns = j.at("turns");
      if (!turns.is_array()) throw fail("expected a list");
      for (std::size_t k = 0; k < turns.size(); ++k) {
        const json& tj = turns[k];
        const std::string base = "turns[" + std::to_string(k) + "].";
        Turn t;
        key = base + "in";
        t.input_tokens = tj.at("in").get<long long>();
        if (t.input_tokens <= 0) throw fail("expected a positive token count");
        key = base + "out";
        t.output_tokens = tj.at("out").get<long long>();
        if (t.output_tokens < 1) throw fail("expected a positive token count");
        key = base + "gap_s";
        t.gap_after_s = tj.value("gap_s", 0.0);
        if (t.gap_after_s < 0) throw fail("expected a non-negative delay");
        key = base + "gap";
        t.gap_kind = parse_gap(tj.value("gap", "none"));
        t.stop = parse_stop_reason(tj.value("stop", ""));
        t.prefix_break = tj.value("break", false);
        if (auto p = tj.find("prefix"); p != tj.end()) {
          key = base + "prefix";
          if (!p->is_array() || p->size() != 3) throw fail("expected [session, turn, blocks]");
          t.prefix_parent = TurnRef{(*p)[0].get<std::int32_t>(), (*p)[1].get<std::int32_t>()};
          t.prefix_blocks = (*p)[2].get<std::int32_t>();
          if (t.prefix_parent.session > static_cast<std::int32_t>(trace.sessions.size())) {
            throw fail("prefix parent must be an earlier session");
          }
        }
        t.runs_begin = static_cast<std::uint32_t>(s.block_runs.size());
        if (auto n = tj.find("new"); n != tj.end()) {
          key = base + "new";
          for (const auto& r : *n) {
            if (!r.is_array() || r.size() != 2) throw fail("expected [first_id, count] runs");
            s.block_runs.push_back(BlockRun{r[0].get<std::uint64_t>(), r[1].get<std::uint32_t>()});
          }
        }
        t.runs_end = static_cast<std::uint32_t>(s.block_runs.size());
        t.t_s = tj.value("t_s", -1.0);
        t.api_time_s = tj.value("api_s", -1.0);
        t.ttft_s = tj.value("ttft_s", -1.0);
        s.turns.push_back(t);
      }
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
