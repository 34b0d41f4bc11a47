// summary.csv and readoffs.csv are RFC 4180: a multi-key deployment ("tp=1,ep=1"), a note with
// quotes and a newline, and missing values all read back column for column with the project's
// reader and with an independent parser (Python's csv module, run from the test).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>

#include "experiments/output/readoff_sinks.hpp"
#include "experiments/output/summary_csv.hpp"
#include "experiments/output/terminal_table.hpp"
#include "sim/core/csv_reader.hpp"
#include "tests/support/cli_runner.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

// Python's csv module: prints "<header length> <row lengths...>" then, per row, the fields named.
std::string python_read(const fs::path& file, const std::string& fields) {
  const std::string py =
      "import csv,sys\n"
      "rows=list(csv.reader(open(sys.argv[1],newline='')))\n"
      "print(len(rows[0]),*[len(r) for r in rows[1:]])\n"
      "h=rows[0]\n"
      "for r in rows[1:]:\n"
      "  print('|'.join(repr(r[h.index(f)]) for f in sys.argv[2].split(',')))\n";
  const fs::path script = file.parent_path() / "read.py";
  std::ofstream(script) << py;
  const auto r = test_support::run_shell("python3 " + script.string() + " " + file.string() + " " + fields);
  EXPECT_EQ(r.code, 0) << r.output;
  return r.output;
}

RunResult run(const std::string& deployment, int concurrency) {
  RunResult r;
  r.system = "hgx-h200";
  r.deployment = deployment;
  r.concurrency = concurrency;
  r.level = concurrency;
  r.id = "hgx-h200/" + deployment + "/" + std::to_string(concurrency);
  r.seed = 18446744073709551615ull;  // the largest seed prints unsigned
  r.summary.output_tok_s = 1234.5;
  r.summary.total_tok_s = 98765.25;
  r.summary.input_tok_s = 0;  // no input: hit rate is missing → empty cell
  r.summary.agent_output_tok_s_p50 = 101.75;
  r.power.power_w = 10000;
  r.skipped = concurrency == 2 ? "plan \"tp=1,ep=1\" does not fit,\nsee memory" : "";
  return r;
}

TEST(CsvOutput, SummaryWithMultiKeyDeploymentLinesUpInBothParsers) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_csv_output";
  fs::remove_all(dir);
  fs::create_directories(dir);
  const std::string text = summary_csv({run("tp=1,ep=1", 1), run("tp=1,ep=1", 2), run("tp=8", 4)});
  std::ofstream(dir / "summary.csv") << text;

  // The project's reader.
  std::istringstream in(text);
  core::CsvReader csv(in, "summary.csv");
  const auto dep = csv.column("deployment"), conc = csv.column("concurrency"), seed = csv.column("seed"),
             hit = csv.column("cache_hit_rate"), skipped = csv.column("skipped"), p50 = csv.column("agent_output_tok_s_p50"),
             last = csv.column("kv_occupancy_peak");
  int rows = 0;
  while (csv.next()) {
    ++rows;
    EXPECT_EQ(csv.field(dep), rows < 3 ? "tp=1,ep=1" : "tp=8");
    EXPECT_EQ(csv.integer(conc), rows == 3 ? 4 : rows);
    EXPECT_EQ(csv.field(seed), "18446744073709551615");
    EXPECT_EQ(csv.field(hit), "") << "a missing value is an empty cell, not nan";
    EXPECT_EQ(csv.field(skipped), rows == 2 ? "plan \"tp=1,ep=1\" does not fit,\nsee memory" : "");
    EXPECT_DOUBLE_EQ(csv.number(p50), 101.75);
    EXPECT_EQ(csv.field(last), "0");
  }
  EXPECT_EQ(rows, 3);
  EXPECT_EQ(text.find("nan"), std::string::npos);

  // Python's csv module: every row as long as the header, the same fields.
  const std::string py = python_read(dir / "summary.csv", "deployment,concurrency,cache_hit_rate,agent_output_tok_s_p50,skipped");
  std::istringstream lines(py);
  std::string lengths;
  std::getline(lines, lengths);
  EXPECT_EQ(lengths, "50 50 50 50");
  std::string row;
  std::getline(lines, row);
  EXPECT_EQ(row, "'tp=1,ep=1'|'1'|''|'101.75'|''");
  std::getline(lines, row);
  EXPECT_EQ(row, "'tp=1,ep=1'|'2'|''|'101.75'|'plan \"tp=1,ep=1\" does not fit,\\nsee memory'");
  std::getline(lines, row);
  EXPECT_EQ(row, "'tp=8'|'4'|''|'101.75'|''");
  fs::remove_all(dir);
}

TEST(CsvOutput, ReadoffsQuoteTheDeploymentAndLeaveMissingValuesEmpty) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_csv_readoffs";
  fs::remove_all(dir);
  fs::create_directories(dir);
  ReadoffRow a;
  a.system = "gb200-nvl72";
  a.deployment = "tp=4,ep=4,dp=2";
  a.target_kind = "speed";
  a.target_agent_tok_s = 100;
  a.total_tok_s_per_mw = std::numeric_limits<double>::quiet_NaN();
  a.note = "outside, \"above\" the swept range";
  std::ofstream(dir / "readoffs.csv") << readoffs_csv({a, a});
  const std::string py = python_read(dir / "readoffs.csv", "deployment,total_tok_s_per_mw,in_swept_range,note");
  std::istringstream lines(py);
  std::string s;
  std::getline(lines, s);
  EXPECT_EQ(s, "16 16 16");
  std::getline(lines, s);
  EXPECT_EQ(s, "'tp=4,ep=4,dp=2'|''|'false'|'outside, \"above\" the swept range'");
  fs::remove_all(dir);
}

TEST(TerminalTables, MissingFiguresPrintAsADashWithTheReasonNeverNan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  ReadoffRow pruned;
  pruned.system = "hgx-h100";
  pruned.deployment = "dp=8,ep=8";
  pruned.target_kind = "single_agent";
  pruned.target_agent_tok_s = pruned.total_tok_s_per_mw = pruned.output_tok_s_per_mw = nan;
  pruned.agents_per_mw = pruned.concurrency = nan;
  pruned.note = "plan pruned: below the 2 best bounds";
  ReadoffRow out = pruned;
  out.target_kind = "speed";
  out.target_agent_tok_s = 100;
  out.total_tok_s_per_mw = 6.2e8;
  out.note = "above every swept point";
  const std::string t = readoff_terminal_table({pruned, out});
  EXPECT_EQ(t.find("nan"), std::string::npos) << t;
  const auto pruned_line = t.substr(t.find("single_agent"), t.find('\n', t.find("single_agent")) - t.find("single_agent"));
  EXPECT_NE(pruned_line.find("      -            -"), std::string::npos) << pruned_line;
  EXPECT_NE(pruned_line.find("  plan pruned: below the 2 best bounds"), std::string::npos) << pruned_line;
  EXPECT_EQ(pruned_line.find("OUTSIDE"), std::string::npos) << "no figure, so nothing is outside a range";
  EXPECT_NE(t.find("620000000"), std::string::npos) << t;
  EXPECT_NE(t.find("OUTSIDE SWEPT RANGE: above every swept point"), std::string::npos) << t;

  RunResult empty = run("tp=8", 1);
  empty.summary.agent_output_tok_s_p50 = empty.summary.agent_output_tok_s_p10 = nan;
  empty.summary.ttft_s_p50 = empty.summary.ttft_s_p90 = empty.summary.ttft_s_p99 = nan;
  empty.power.power_w = 0;
  const std::string runs = terminal_table({empty});
  EXPECT_EQ(runs.find("nan"), std::string::npos) << runs;
  EXPECT_NE(runs.find("1234.5"), std::string::npos) << runs;
}

}  // namespace
}  // namespace agentsim::exp
