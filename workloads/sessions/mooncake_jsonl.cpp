#include "workloads/sessions/mooncake_jsonl.hpp"

#include <fstream>

#include <nlohmann/json.hpp>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "workloads/sessions/block_count.hpp"
#include "workloads/sessions/json_brief.hpp"
#include "workloads/sessions/prefix_tree_builder.hpp"

namespace agentsim::wl {

Trace read_mooncake_jsonl(std::istream& in, const std::string& file, const ImportOptions& opt,
                          ImportReport* report) {
  using nlohmann::json;
  Trace trace;
  trace.name = file;
  trace.block_size_tokens = 512;
  trace.global_block_ids = true;
  PrefixTreeBuilder tree;
  ImportReport local;
  std::string text;
  std::vector<std::uint64_t> ids;
  int line = 0;
  while (std::getline(in, text)) {
    ++line;
    if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
    ++local.lines_read;
    auto fail = [&](const std::string& key, const std::string& what) {
      return core::Error(core::SourceLocation{file, line, key}, what);
    };
    try {
      json j;
      try {
        j = json::parse(text);
      } catch (const json::exception& e) {  // parse_error, or out_of_range for a number like 1e400
        throw fail("", std::string("invalid JSON: ") + e.what());
      }
      if (!j.is_object()) throw fail("", "expected a JSON object");
      auto integer = [&](const char* key, long long lo, long long hi) {
        auto it = j.find(key);
        if (it == j.end()) throw fail(key, "missing required field");
        if (!it->is_number_integer()) throw fail(key, "expected an integer, found " + json_brief(*it));
        // Unsigned values above the signed range would wrap in get<long long>().
        const bool too_big = it->is_number_unsigned() && it->get<std::uint64_t>() > static_cast<std::uint64_t>(hi);
        const long long v = too_big ? hi : it->get<long long>();
        if (too_big || v < lo || v > hi) {
          throw fail(key, "expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "], found " + json_brief(*it));
        }
        return v;
      };
      // Milliseconds; a bound of about 300 years keeps the seconds exact in a double.
      const long long ts_ms = integer("timestamp", 0, 10'000'000'000'000LL);
      Turn t;
      t.input_tokens = integer("input_length", 1, kMaxTurnTokens);
      t.output_tokens = std::max<long long>(1, integer("output_length", 0, kMaxTurnTokens));
      t.t_s = 0;
      auto h = j.find("hash_ids");
      if (h == j.end()) throw fail("hash_ids", "missing required field");
      if (!h->is_array()) throw fail("hash_ids", "expected a list of block ids");
      ids.clear();
      for (const auto& x : *h) {
        if (!x.is_number_unsigned()) throw fail("hash_ids", "expected non-negative integer ids, found " + json_brief(x));
        ids.push_back(x.get<std::uint64_t>());
      }
      const std::string bad = block_count_mismatch(t.input_tokens, static_cast<long long>(ids.size()), 512);
      if (!bad.empty()) throw fail("hash_ids", bad + " (input_length)");
      Session s;
      s.id = "line" + std::to_string(line);
      s.start_s = static_cast<double>(ts_ms) / 1000.0;
      s.root = static_cast<std::int32_t>(trace.sessions.size());
      s.turns.push_back(t);
      trace.sessions.push_back(std::move(s));
      tree.add(0, TurnRef{trace.sessions.back().root, 0}, ids, trace.sessions.back());
    } catch (const core::Error& e) {
      if (!opt.skip_bad) throw;
      if (local.lines_skipped++ == 0) local.first_error = e.what();
    }
  }
  if (report) *report = local;
  return trace;
}

Trace load_mooncake_jsonl(const std::string& path, const ImportOptions& opt, ImportReport* report) {
  std::ifstream in = core::open_input(path, "trace file");
  return read_mooncake_jsonl(in, path, opt, report);
}

}  // namespace agentsim::wl
