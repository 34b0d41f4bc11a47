#include "experiments/output/run_comparison.hpp"

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>

#include "experiments/output/nice_ticks.hpp"
#include "experiments/output/report_charts.hpp"
#include "experiments/output/report_html.hpp"
#include "experiments/output/svg_plot.hpp"

namespace agentsim::exp {

namespace {


std::string target_name(const ReadoffRow& r) {
  if (r.target_kind == "single_agent") return "single agent";
  return (r.target_kind == "speed" ? std::string() : r.target_kind + " ") + tick_label(r.target_agent_tok_s) +
         " tok/s";
}

// The compared figure: per-MW throughput at a target; a single agent's own speed.
double figure_of(const ReadoffRow& r) {
  return r.target_kind == "single_agent" ? r.target_agent_tok_s : r.total_tok_s_per_mw;
}

}  // namespace

std::vector<ReadoffDelta> readoff_deltas(const std::vector<RunTable>& tables) {
  std::vector<ReadoffDelta> out;
  if (tables.size() < 2) return out;
  const RunTable& base = tables.front();
  for (const ReadoffRow& a : base.readoffs) {
    for (std::size_t j = 1; j < tables.size(); ++j) {
      for (const ReadoffRow& b : tables[j].readoffs) {
        if (b.system != a.system || b.target_kind != a.target_kind ||
            (a.target_kind != "single_agent" && b.target_agent_tok_s != a.target_agent_tok_s)) {
          continue;
        }
        ReadoffDelta d{a.system,
                       target_name(a),
                       base.label,
                       tables[j].label,
                       a.deployment,
                       b.deployment,
                       a.target_kind == "single_agent" ? "tok/s per agent" : "total tok/s per MW",
                       figure_of(a),
                       figure_of(b),
                       std::numeric_limits<double>::quiet_NaN()};
        if (std::isfinite(d.baseline_value) && std::isfinite(d.run_value) && d.baseline_value > 0) {
          d.delta_pct = (d.run_value - d.baseline_value) / d.baseline_value * 100.0;
        }
        out.push_back(d);
        break;
      }
    }
  }
  return out;
}

std::vector<RunTable> read_run_tables(const std::vector<std::string>& dirs) {
  std::vector<RunTable> out;
  for (const auto& d : dirs) out.push_back(read_run_table(d));
  return out;
}

std::string comparison_html(std::vector<RunTable> tables) {
  std::map<std::string, int> seen;
  for (RunTable& t : tables) {
    const int n = ++seen[t.label];
    if (n > 1) t.label += " (" + std::to_string(n) + ")";
  }
  std::string runs;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    runs += (i ? ", " : "") + std::string("<b>") + html_escape(tables[i].label) + "</b>" +
            (i == 0 ? " (baseline, dashed)" : "");
  }
  std::string h = report_page_head("agentsim comparison");
  h += "<h1>Comparison</h1>\n<p>Runs: " + runs +
       ". Each curve is one system's chosen deployment in one run. "
       "Hover a point for the run's numbers.</p>\n";
  h += svg_line_chart(headline_chart(tables));
  h += "<h2>Read-off deltas</h2>\n<p>Total tokens/s per MW at each target both runs read off, and each "
       "system's single-agent speed, against the baseline.</p>\n<div class=\"wide\"><table class=\"compare\" "
       "id=\"readoff-deltas\"><tr>"
       "<th class=\"l\">system</th><th class=\"l\">target</th><th class=\"l\">baseline</th><th "
       "class=\"l\">run</th><th class=\"l\">figure</th>"
       "<th>baseline</th><th>run</th><th>delta</th><th "
       "class=\"l\">deployments</th></tr>\n";
  const auto deltas = readoff_deltas(tables);
  for (ReadoffDelta d : deltas) {
    if (std::fabs(d.delta_pct) < 0.05) d.delta_pct = 0;  // "+0.0%", not "-0.0%", for an unchanged figure
    const char* cls = "";
    if (std::isfinite(d.delta_pct) && d.delta_pct != 0)
      cls = d.delta_pct > 0 ? " class=\"up\"" : " class=\"down\"";
    h += "<tr class=\"delta\"><td class=\"l\">" + html_escape(d.system) + "</td><td class=\"l\">" +
         html_escape(d.target) + "</td><td class=\"l\">" + html_escape(d.baseline_label) +
         "</td><td class=\"l\">" + html_escape(d.run_label) + "</td><td class=\"l\">" + html_escape(d.figure) +
         "</td><td>" + readable_number(d.baseline_value) + "</td><td>" + readable_number(d.run_value) + "</td><td" +
         cls + ">" + html_cell(d.delta_pct, "%+.1f%%") + "</td><td class=\"l\">" +
         html_escape(d.baseline_deployment) +
         (d.run_deployment == d.baseline_deployment ? "" : " &rarr; " + html_escape(d.run_deployment)) +
         "</td></tr>\n";
  }
  h += "</table></div>\n";
  if (deltas.empty())
    h += "<p>No (system, target) pair is read off in both the baseline and another run.</p>\n";
  h += svg_bar_chart(single_agent_chart(tables)) + svg_line_chart(ttft_chart(tables));
  return h + report_page_tail();
}

}  // namespace agentsim::exp
