#include "experiments/output/run_table.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <limits>

#include "sim/core/csv_reader.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {

namespace {
namespace fs = std::filesystem;

core::Error file_error(const std::string& file, const std::string& what) {
  return core::Error(core::SourceLocation{file, 0, ""}, what);
}

// The sinks write a missing value (no power, not read off) as an empty cell (older outputs: "nan");
// anything else must be a number.
double figure(const core::CsvReader& csv, std::size_t col) {
  const std::string& v = csv.field(col);
  if (v.empty() || v == "nan" || v == "-nan") return std::numeric_limits<double>::quiet_NaN();
  return csv.number(col);
}

// A column older run folders may lack (the error bands): NaN where absent or empty.
class OptionalColumn {
 public:
  OptionalColumn(const core::CsvReader& csv, std::string_view name)
      : present_(csv.has_column(name)), col_(present_ ? csv.column(name) : 0) {}
  double get(const core::CsvReader& csv) const {
    return present_ ? figure(csv, col_) : std::numeric_limits<double>::quiet_NaN();
  }

 private:
  bool present_;
  std::size_t col_;
};

}  // namespace

RunTable run_table_from_outcome(const SweepOutcome& o, const std::string& label) {
  RunTable t;
  t.label = label;
  for (const RunResult& r : o.runs) {
    if (!r.skipped.empty()) continue;
    const auto& s = r.summary;
    const double total = per_mw(s.total_tok_s, r);
    t.points.push_back(RunPoint{r.system, r.deployment, r.level, s.agent_output_tok_s_p50, total,
                                per_mw(s.output_tok_s, r), s.ttft_s_p90, r.bisection,
                                total * r.band.throughput_lo, total * r.band.throughput_hi,
                                s.agent_output_tok_s_p50 * r.band.agent_lo, s.agent_output_tok_s_p50 * r.band.agent_hi});
  }
  t.readoffs = o.readoffs;
  return t;
}

RunTable read_run_table(const std::string& dir) {
  if (!fs::is_directory(dir)) throw file_error(dir, "not a run folder (agentsim run --out DIR writes one)");
  RunTable t;
  t.label = fs::path(dir).lexically_normal().filename().string();
  if (t.label.empty() || t.label == ".")
    t.label = fs::path(dir).lexically_normal().parent_path().filename().string();
  const std::string summary = (fs::path(dir) / "summary.csv").string();
  const std::string readoffs = (fs::path(dir) / "readoffs.csv").string();
  for (const auto& f : {summary, readoffs}) {
    if (!fs::is_regular_file(f))
      throw file_error(f, "missing: not the output folder of a finished `agentsim run`");
  }
  {
    std::ifstream in(summary);
    core::CsvReader csv(in, summary);
    const auto sys = csv.column("system"), dep = csv.column("deployment"), level = csv.column("level"),
               speed = csv.column("agent_output_tok_s_p50"), total = csv.column("total_tok_s_per_mw"),
               output = csv.column("output_tok_s_per_mw"), ttft = csv.column("ttft_s_p90"),
               bis = csv.column("bisection"), skipped = csv.column("skipped");
    const OptionalColumn total_lo(csv, "total_tok_s_per_mw_lo"), total_hi(csv, "total_tok_s_per_mw_hi"),
        speed_lo(csv, "agent_output_tok_s_p50_lo"), speed_hi(csv, "agent_output_tok_s_p50_hi");
    while (csv.next()) {
      if (!csv.field(skipped).empty()) continue;
      t.points.push_back(RunPoint{csv.field(sys), csv.field(dep), figure(csv, level), figure(csv, speed),
                                  figure(csv, total), figure(csv, output), figure(csv, ttft),
                                  csv.integer(bis) != 0, total_lo.get(csv), total_hi.get(csv),
                                  speed_lo.get(csv), speed_hi.get(csv)});
    }
  }
  {
    std::ifstream in(readoffs);
    core::CsvReader csv(in, readoffs);
    const auto sys = csv.column("system"), dep = csv.column("deployment"), kind = csv.column("target_kind"),
               target = csv.column("target_agent_tok_s"), total = csv.column("total_tok_s_per_mw"),
               output = csv.column("output_tok_s_per_mw"), agents = csv.column("agents_per_mw"),
               in_range = csv.column("in_swept_range"), conc = csv.column("concurrency"),
               note = csv.column("note");
    const OptionalColumn total_lo(csv, "total_tok_s_per_mw_lo"), total_hi(csv, "total_tok_s_per_mw_hi"),
        speed_lo(csv, "agent_tok_s_lo"), speed_hi(csv, "agent_tok_s_hi");
    while (csv.next()) {
      ReadoffRow r;
      r.system = csv.field(sys);
      r.deployment = csv.field(dep);
      r.target_kind = csv.field(kind);
      r.target_agent_tok_s = figure(csv, target);
      r.total_tok_s_per_mw = figure(csv, total);
      r.output_tok_s_per_mw = figure(csv, output);
      r.agents_per_mw = figure(csv, agents);
      const std::string& b = csv.field(in_range);
      if (b != "true" && b != "false")
        throw csv.error_at(in_range, "expected true or false, got '" + b + "'");
      r.in_swept_range = b == "true";
      r.concurrency = figure(csv, conc);
      r.note = csv.field(note);
      r.total_tok_s_per_mw_lo = total_lo.get(csv);
      r.total_tok_s_per_mw_hi = total_hi.get(csv);
      r.agent_tok_s_lo = speed_lo.get(csv);
      r.agent_tok_s_hi = speed_hi.get(csv);
      t.readoffs.push_back(r);
    }
  }
  if (t.points.empty()) throw file_error(summary, "no run that ran: nothing to compare");
  return t;
}

std::string shown_deployment(const RunTable& t, const std::string& system) {
  for (const auto& r : t.readoffs) {
    if (r.system == system && !r.deployment.empty() && r.deployment != "-") return r.deployment;
  }
  for (const auto& p : t.points) {
    if (p.system == system) return p.deployment;
  }
  return "";
}

std::vector<std::string> table_systems(const RunTable& t) {
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (std::find(out.begin(), out.end(), s) == out.end()) out.push_back(s);
  };
  for (const auto& r : t.readoffs) add(r.system);
  for (const auto& p : t.points) add(p.system);
  return out;
}

std::vector<RunPoint> curve_points(const RunTable& t, const std::string& system,
                                   const std::string& deployment, bool with_bisection) {
  std::vector<RunPoint> out;
  for (const auto& p : t.points) {
    if (p.system == system && p.deployment == deployment && (with_bisection || !p.bisection))
      out.push_back(p);
  }
  std::stable_sort(out.begin(), out.end(),
                   [](const RunPoint& a, const RunPoint& b) { return a.level < b.level; });
  return out;
}

}  // namespace agentsim::exp
