#include "workloads/sessions/claude_code_json.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "workloads/sessions/block_count.hpp"
#include "workloads/sessions/import_options.hpp"
#include "workloads/sessions/json_brief.hpp"
#include "workloads/sessions/prefix_tree_builder.hpp"

namespace agentsim::wl {
namespace {

using nlohmann::json;

constexpr int kMaxSubagentDepth = 64;

class Reader {
 public:
  Reader(Trace& trace, PrefixTreeBuilder& tree, std::string file, std::int64_t space)
      : trace_(trace), tree_(tree), file_(std::move(file)), space_(space) {}

  [[noreturn]] void fail(const std::string& path, const std::string& what) const {
    throw core::Error(core::SourceLocation{file_, 0, path}, what);
  }

  const json& field(const json& obj, const std::string& path, const char* key) const {
    auto it = obj.find(key);
    if (it == obj.end()) fail(path + "." + key, "missing required field");
    return *it;
  }
  double number(const json& obj, const std::string& path, const char* key, double lo) const {
    const json& v = field(obj, path, key);
    if (!v.is_number()) fail(path + "." + key, "expected a number, found " + json_brief(v));
    const double x = v.get<double>();
    if (x < lo) fail(path + "." + key, "expected a value >= " + std::to_string(static_cast<long long>(lo)));
    return x;
  }
  double optional_number(const json& obj, const char* key) const {
    auto it = obj.find(key);
    return (it != obj.end() && it->is_number()) ? it->get<double>() : -1.0;
  }
  long long integer(const json& obj, const std::string& path, const char* key, long long lo) const {
    const json& v = field(obj, path, key);
    if (!v.is_number_integer()) fail(path + "." + key, "expected an integer, found " + json_brief(v));
    // Unsigned values above the signed range would wrap in get<long long>().
    if (v.is_number_unsigned() && v.get<std::uint64_t>() > static_cast<std::uint64_t>(kMaxTurnTokens)) {
      fail(path + "." + key, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(kMaxTurnTokens) + "]");
    }
    const long long x = v.get<long long>();
    if (x < lo || x > kMaxTurnTokens) {
      fail(path + "." + key, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(kMaxTurnTokens) + "]");
    }
    return x;
  }

  // Adds the session for `requests` (already named) and its sub-agents, depth first.
  void session(const json& requests, const std::string& path, const std::string& id, SpawnLink spawn,
               double start_s, std::int32_t root, int depth = 0) {
    if (!requests.is_array()) fail(path, "expected a list of requests");
    if (requests.empty()) fail(path, "expected at least one request (an empty session)");
    // Bounded so that a hostile file cannot overflow the stack through this recursion.
    if (depth > kMaxSubagentDepth) fail(path, "sub-agents nested deeper than " + std::to_string(kMaxSubagentDepth) + " levels");
    const auto si = static_cast<std::int32_t>(trace_.sessions.size());
    trace_.sessions.emplace_back();
    trace_.sessions.back().id = id;
    trace_.sessions.back().spawn = spawn;
    trace_.sessions.back().root = root < 0 ? si : root;
    trace_.sessions.back().start_s = start_s;
    std::vector<double> think;
    std::vector<std::uint64_t> ids;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      const json& r = requests[i];
      const std::string rp = path + "[" + std::to_string(i) + "]";
      if (!r.is_object()) fail(rp, "expected an object");
      const json& type = field(r, rp, "type");
      if (type == "subagent") {
        const auto& parent = trace_.sessions[static_cast<std::size_t>(si)];
        const std::int32_t after = static_cast<std::int32_t>(parent.turns.size()) - 1;
        auto agent = r.find("agent_id");
        auto kind = r.find("subagent_type");
        std::string name = (agent != r.end() && agent->is_string()) ? agent->get<std::string>() : "agent";
        if (kind != r.end() && kind->is_string()) name += ":" + kind->get<std::string>();
        const double t = number(r, rp, "t", 0);
        session(field(r, rp, "requests"), rp + ".requests", id + "/" + name,
                SpawnLink{si, after, false}, start_s + t, root < 0 ? si : root, depth + 1);
        continue;
      }
      Turn t;
      t.input_tokens = integer(r, rp, "in", 1);
      t.output_tokens = std::max<long long>(1, integer(r, rp, "out", 0));
      t.t_s = number(r, rp, "t", 0);
      t.api_time_s = optional_number(r, "api_time");
      t.ttft_s = optional_number(r, "ttft");
      auto stop = r.find("stop");
      if (stop != r.end() && stop->is_string()) t.stop = parse_stop_reason(stop->get<std::string>());
      think.push_back(std::max(0.0, optional_number(r, "think_time")));
      const json& h = field(r, rp, "hash_ids");
      if (!h.is_array()) fail(rp + ".hash_ids", "expected a list of block ids");
      ids.clear();
      for (const auto& x : h) {
        if (!x.is_number_unsigned()) fail(rp + ".hash_ids", "expected non-negative integer ids, found " + json_brief(x));
        ids.push_back(x.get<std::uint64_t>());
      }
      const std::string bad = block_count_mismatch(t.input_tokens, static_cast<long long>(ids.size()), 64);
      if (!bad.empty()) fail(rp + ".hash_ids", bad);
      Session& s = trace_.sessions[static_cast<std::size_t>(si)];
      s.turns.push_back(t);
      tree_.add(space_, TurnRef{si, static_cast<std::int32_t>(s.turns.size() - 1)}, ids, s);
    }
    Session& s = trace_.sessions[static_cast<std::size_t>(si)];
    for (std::size_t k = 0; k + 1 < s.turns.size(); ++k) s.turns[k].gap_after_s = think[k + 1];
    annotate_turns(s);
  }

 private:
  Trace& trace_;
  PrefixTreeBuilder& tree_;
  std::string file_;
  std::int64_t space_;
};

}  // namespace

namespace {

// Adds the sessions of one trace file's text to `trace`, in block-id space `space`.
void add_trace_file(Trace& trace, PrefixTreeBuilder& tree, std::int64_t space, const std::string& text,
                    const std::string& path) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const json::parse_error& e) {
    // The parser counts bytes; a line number is what an editor can jump to.
    const std::size_t upto = std::min<std::size_t>(e.byte, text.size());
    const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(upto), '\n'));
    throw core::Error(core::SourceLocation{path, line, ""}, std::string("invalid JSON: ") + e.what());
  } catch (const json::exception& e) {
    // out_of_range for a number beyond a double (e.g. 1e400).
    throw core::Error(core::SourceLocation{path, 0, ""}, std::string("invalid JSON: ") + e.what());
  }
  if (!doc.is_object()) throw core::Error(core::SourceLocation{path, 0, ""}, "expected a JSON object");
  auto bs = doc.find("block_size");
  if (bs != doc.end() && (!bs->is_number_integer() || bs->get<long long>() != 64)) {
    throw core::Error(core::SourceLocation{path, 0, "block_size"}, "expected 64, found " + json_brief(*bs));
  }
  std::string id = std::filesystem::path(path).stem().string();
  auto idf = doc.find("id");
  if (idf != doc.end() && idf->is_string()) id = idf->get<std::string>();
  Reader reader(trace, tree, path, space);
  auto reqs = doc.find("requests");
  if (reqs == doc.end()) throw core::Error(core::SourceLocation{path, 0, "requests"}, "missing required field");
  reader.session(*reqs, "requests", id + "/root", SpawnLink{}, 0.0, -1);
}

}  // namespace

Trace read_claude_code_json(const std::string& text, const std::string& file) {
  Trace trace;
  trace.block_size_tokens = 64;
  PrefixTreeBuilder tree;
  add_trace_file(trace, tree, 0, text, file);
  trace.name = file;
  return trace;
}

Trace load_claude_code_json(const std::vector<std::string>& paths) {
  Trace trace;
  trace.block_size_tokens = 64;
  PrefixTreeBuilder tree;
  std::int64_t space = 0;
  for (const auto& path : paths) {
    std::ifstream in = core::open_input(path, "trace file");
    std::stringstream buf;
    buf << in.rdbuf();
    add_trace_file(trace, tree, space++, buf.str(), path);
  }
  trace.name = paths.size() == 1 ? paths.front() : std::to_string(paths.size()) + " Claude Code trace files";
  return trace;
}

}  // namespace agentsim::wl
