#include "workloads/sessions/azure_csv.hpp"

#include <cstdio>
#include <fstream>

#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"

namespace agentsim::wl {

bool parse_timestamp_s(const std::string& text, double& out_s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, n = 0;
  double s = 0;
  if (std::sscanf(text.c_str(), "%4d-%2d-%2d %2d:%2d:%lf%n", &y, &mo, &d, &h, &mi, &s, &n) != 6) return false;
  if (static_cast<std::size_t>(n) != text.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 ||
      !(s >= 0 && s < 61)) {  // negated so that "nan" seconds (which %lf accepts) are rejected
    return false;
  }
  // Days from civil (H. Hinnant's algorithm), exact for the proleptic Gregorian calendar.
  const int yy = y - (mo <= 2 ? 1 : 0);
  const int era = (yy >= 0 ? yy : yy - 399) / 400;
  const int yoe = yy - era * 400;
  const int doy = (153 * (mo + (mo > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const long long days = static_cast<long long>(era) * 146097 + doe - 719468;
  out_s = static_cast<double>(days) * 86400.0 + h * 3600.0 + mi * 60.0 + s;
  return true;
}

Trace read_azure_csv(std::istream& in, const std::string& file, const ImportOptions& opt, ImportReport* report) {
  core::CsvReader csv(in, file);
  const auto c_ts = csv.column("TIMESTAMP");
  const auto c_in = csv.column("ContextTokens");
  const auto c_out = csv.column("GeneratedTokens");
  Trace trace;
  trace.name = file;
  ImportReport local;
  double t0 = 0;
  bool have_t0 = false;
  while (true) {
    try {
      if (!csv.next()) break;
      ++local.lines_read;
      double ts = 0;
      if (!parse_timestamp_s(csv.field(c_ts), ts)) {
        throw csv.error_at(c_ts, "expected a time 'YYYY-MM-DD hh:mm:ss.fraction', found '" + csv.field(c_ts) + "'");
      }
      Turn t;
      t.input_tokens = csv.integer(c_in);
      t.output_tokens = csv.integer(c_out);
      if (t.input_tokens <= 0 || t.input_tokens > kMaxTurnTokens) {
        throw csv.error_at(c_in, t.input_tokens <= 0 ? "expected a positive token count"
                                                     : "expected at most " + std::to_string(kMaxTurnTokens) + " tokens");
      }
      if (t.output_tokens < 0 || t.output_tokens > kMaxTurnTokens) {
        throw csv.error_at(c_out, t.output_tokens < 0 ? "expected a non-negative token count"
                                                      : "expected at most " + std::to_string(kMaxTurnTokens) + " tokens");
      }
      t.output_tokens = std::max<long long>(1, t.output_tokens);
      t.t_s = 0;
      if (!have_t0) {
        t0 = ts;
        have_t0 = true;
      }
      Session s;
      s.id = "line" + std::to_string(csv.line());
      s.start_s = ts - t0;
      s.root = static_cast<std::int32_t>(trace.sessions.size());
      s.turns.push_back(t);
      trace.sessions.push_back(std::move(s));
    } catch (const core::Error& e) {
      if (!opt.skip_bad) throw;
      if (local.lines_skipped++ == 0) local.first_error = e.what();
    }
  }
  if (report) *report = local;
  return trace;
}

Trace load_azure_csv(const std::string& path, const ImportOptions& opt, ImportReport* report) {
  std::ifstream in = core::open_input(path, "trace file");
  return read_azure_csv(in, path, opt, report);
}

}  // namespace agentsim::wl
