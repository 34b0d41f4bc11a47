#include "experiments/output/report_charts.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "experiments/output/nice_ticks.hpp"

namespace agentsim::exp {

namespace {


std::string series_name(const std::vector<RunTable>& tables, const RunTable& t, const std::string& system,
                        const std::string& deployment) {
  return (tables.size() > 1 ? t.label + ": " : std::string()) + system + " " + deployment;
}

// One colour per system across every table, so a system's runs share it (the baseline dashed).
int system_color(const std::vector<RunTable>& tables, const std::string& system) {
  std::vector<std::string> all;
  for (const RunTable& t : tables) {
    for (const auto& s : table_systems(t)) {
      if (std::find(all.begin(), all.end(), s) == all.end()) all.push_back(s);
    }
  }
  return static_cast<int>(std::find(all.begin(), all.end(), system) - all.begin());
}

// The hover text of one run: who it is and its numbers.
std::string band_text(double lo, double hi, double unit, const char* suffix) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "";
  return " (band " + readable_number(lo / unit) + "\u2013" + readable_number(hi / unit) + suffix + ")";
}

std::string point_title(const std::string& name, const RunPoint& p) {
  return name + "\nconcurrency " + readable_number(p.level, 6) + (p.bisection ? " (SLO bisection)" : "") +
         "\nper-agent output speed p50: " + readable_number(p.agent_output_tok_s_p50) + " tok/s" +
         band_text(p.agent_output_tok_s_p50_lo, p.agent_output_tok_s_p50_hi, 1, "") +
         "\ntotal tok/s per MW: " + readable_number(p.total_tok_s_per_mw / 1e6) + " M" +
         band_text(p.total_tok_s_per_mw_lo, p.total_tok_s_per_mw_hi, 1e6, " M") +
         "\noutput tok/s per MW: " + readable_number(p.output_tok_s_per_mw / 1e6) + " M" +
         "\nTTFT p90: " + readable_number(p.ttft_s_p90) + " s";
}

}  // namespace

std::string readoff_label(double target_agent_tok_s, double total_tok_s_per_mw) {
  return readable_number(target_agent_tok_s) + " tok/s: " + readable_number(total_tok_s_per_mw / 1e6) + " M";
}

LineChart headline_chart(const std::vector<RunTable>& tables) {
  LineChart c;
  c.id = "headline";
  c.title = "Total tokens/s per MW vs per-agent output speed";
  c.x_label = "per-agent output speed, p50 (tok/s)";
  c.y_label = "total tok/s per MW (millions)";
  c.y_unit = 1e6;
  for (std::size_t ti = 0; ti < tables.size(); ++ti) {
    const RunTable& t = tables[ti];
    for (const auto& system : table_systems(t)) {
      const std::string dep = shown_deployment(t, system);
      Series s;
      s.name = series_name(tables, t, system, dep);
      s.dashed = tables.size() > 1 && ti == 0;
      s.labels_below = s.dashed;
      s.color = system_color(tables, system);
      for (const RunPoint& p : curve_points(t, system, dep, false)) {
        s.points.emplace_back(p.agent_output_tok_s_p50, p.total_tok_s_per_mw);
        s.band.emplace_back(p.total_tok_s_per_mw_lo, p.total_tok_s_per_mw_hi);
        s.point_titles.push_back(point_title(s.name, p));
      }
      for (const auto& r : t.readoffs) {
        if (r.system != system || r.deployment != dep || r.target_kind != "speed") continue;
        if (!std::isfinite(r.total_tok_s_per_mw)) continue;
        s.markers.emplace_back(r.target_agent_tok_s, r.total_tok_s_per_mw);
        s.marker_bands.emplace_back(r.total_tok_s_per_mw_lo, r.total_tok_s_per_mw_hi);
        s.marker_labels.push_back(readoff_label(r.target_agent_tok_s, r.total_tok_s_per_mw));
      }
      if (!s.points.empty()) c.series.push_back(std::move(s));
    }
  }
  return c;
}

LineChart ttft_chart(const std::vector<RunTable>& tables) {
  LineChart c;
  c.id = "ttft";
  c.title = "Time to first token (p90) vs concurrency";
  c.x_label = "concurrency (agents, log scale)";
  c.y_label = "TTFT p90 (s, log scale)";
  c.log_x = true;
  c.log_y = true;
  for (std::size_t ti = 0; ti < tables.size(); ++ti) {
    const RunTable& t = tables[ti];
    for (const auto& system : table_systems(t)) {
      const std::string dep = shown_deployment(t, system);
      Series s;
      s.name = series_name(tables, t, system, dep);
      s.dashed = tables.size() > 1 && ti == 0;
      s.color = system_color(tables, system);
      for (const RunPoint& p : curve_points(t, system, dep, true)) {
        s.points.emplace_back(p.level, p.ttft_s_p90);
        s.point_titles.push_back(point_title(s.name, p));
      }
      if (!s.points.empty()) c.series.push_back(std::move(s));
    }
  }
  return c;
}

BarChart single_agent_chart(const std::vector<RunTable>& tables) {
  BarChart c;
  c.id = "single-agent";
  c.value_label = "per-agent output speed, p50 (tok/s)";
  bool all_readoffs = true, all_one = true;
  for (std::size_t ti = 0; ti < tables.size(); ++ti) {
    const RunTable& t = tables[ti];
    for (const auto& system : table_systems(t)) {
      // The read-off table's single-agent row: the system's fastest plan at concurrency 1.
      const ReadoffRow* row = nullptr;
      for (const auto& r : t.readoffs) {
        if (!row && r.system == system && r.target_kind == "single_agent") row = &r;
      }
      if (row) {
        const std::string name = series_name(tables, t, system, row->deployment);
        const auto pts = curve_points(t, system, row->deployment, true);
        const auto one = std::find_if(pts.begin(), pts.end(), [](const RunPoint& p) { return p.level == 1; });
        const bool has = std::isfinite(row->target_agent_tok_s);
        c.bars.push_back(name + (has ? "" : " (" + (row->note.empty() ? std::string("no figure") : row->note) + ")"));
        c.values.push_back(row->target_agent_tok_s);
        c.bands.emplace_back(row->agent_tok_s_lo, row->agent_tok_s_hi);
        c.titles.push_back(one != pts.end() ? point_title(name, *one) : name + "\n" + row->note);
        c.colors.push_back(system_color(tables, system));
        c.faded.push_back(tables.size() > 1 && ti == 0);
        continue;
      }
      all_readoffs = false;
      const std::string dep = shown_deployment(t, system);
      const auto pts = curve_points(t, system, dep, false);
      if (pts.empty()) continue;
      const RunPoint& p = pts.front();  // the lowest level
      all_one = all_one && p.level == 1;
      const std::string name = series_name(tables, t, system, dep);
      c.bars.push_back(name + (p.level == 1 ? "" : " (at " + readable_number(p.level, 6) + " agents)"));
      c.values.push_back(p.agent_output_tok_s_p50);
      c.bands.emplace_back(p.agent_output_tok_s_p50_lo, p.agent_output_tok_s_p50_hi);
      c.titles.push_back(point_title(name, p));
      c.colors.push_back(system_color(tables, system));
      c.faded.push_back(tables.size() > 1 && ti == 0);
    }
  }
  c.title = all_readoffs ? "Single-agent speed (concurrency 1): each system's fastest plan, as in the read-off table"
            : all_one    ? "Single-agent speed (concurrency 1), the plan of each system's curve"
                         : "Per-agent speed at the lowest swept concurrency (no concurrency-1 run)";
  return c;
}

}  // namespace agentsim::exp
