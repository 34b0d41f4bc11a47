#include "workloads/claude_code_csv.hpp"

#include <algorithm>
#include <fstream>
#include <map>

#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"

namespace agentsim::wl {

std::vector<Session> read_claude_code_csv(std::istream& in, const std::string& file) {
  core::CsvReader csv(in, file);
  const auto c_trace = csv.column("trace_id");
  const auto c_agent = csv.column("agent_path");
  const auto c_idx = csv.column("req_idx");
  const auto c_in = csv.column("in_tokens");
  const auto c_out = csv.column("out_tokens");
  const auto c_think = csv.column("think_time_s");

  struct Row {
    long long idx;
    Turn turn;
    double think_s;
  };
  std::vector<std::string> order;  // first-appearance order of session ids
  std::map<std::string, std::vector<Row>> rows;
  while (csv.next()) {
    Row r;
    r.idx = csv.integer(c_idx);
    r.turn.input_tokens = csv.integer(c_in);
    r.turn.output_tokens = csv.integer(c_out);
    r.think_s = csv.number_or(c_think, 0.0);
    if (r.idx < 0) throw csv.error_at(c_idx, "expected a non-negative index");
    if (r.turn.input_tokens <= 0) throw csv.error_at(c_in, "expected a positive token count");
    if (r.turn.output_tokens < 0) throw csv.error_at(c_out, "expected a non-negative token count");
    if (r.think_s < 0) throw csv.error_at(c_think, "expected a non-negative delay");
    const std::string id = csv.field(c_trace) + "/" + csv.field(c_agent);
    auto [it, inserted] = rows.try_emplace(id);
    if (inserted) order.push_back(id);
    it->second.push_back(r);
  }

  std::vector<Session> sessions;
  sessions.reserve(order.size());
  for (const auto& id : order) {
    auto& rs = rows[id];
    std::stable_sort(rs.begin(), rs.end(), [](const Row& a, const Row& b) { return a.idx < b.idx; });
    Session s;
    s.id = id;
    for (std::size_t k = 0; k < rs.size(); ++k) {
      Turn t = rs[k].turn;
      // A turn that produced no output still occupies a prefill; keep it with one token.
      t.output_tokens = std::max<long long>(t.output_tokens, 1);
      t.gap_after_s = (k + 1 < rs.size()) ? rs[k + 1].think_s : 0.0;
      s.turns.push_back(t);
    }
    sessions.push_back(std::move(s));
  }
  return sessions;
}

std::vector<Session> load_claude_code_csv(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw core::Error(core::SourceLocation{path, 0, ""}, "cannot open trace file");
  return read_claude_code_csv(in, path);
}

}  // namespace agentsim::wl
