#include "experiments/output/report_html.hpp"
#include "experiments/config/deployment_name.hpp"

#include <cmath>
#include <cstdio>

#include "experiments/output/report_charts.hpp"
#include "experiments/output/rests_on.hpp"
#include "experiments/output/results_h5.hpp"
#include "experiments/output/run_table.hpp"
#include "experiments/output/svg_plot.hpp"
#include "sim/metrics/summary.hpp"

namespace agentsim::exp {

namespace {


// The plan each system's curves show: the one chosen for the first target.
int shown_plan(const Experiment& e, const SweepOutcome& o, std::size_t system) {
  for (const auto& r : o.readoffs) {
    if (r.plan >= 0 && e.plans[static_cast<std::size_t>(r.plan)].system == static_cast<int>(system)) return r.plan;
  }
  for (std::size_t p = 0; p < e.plans.size(); ++p) {
    if (e.plans[p].system == static_cast<int>(system) && e.plans[p].pruned.empty()) return static_cast<int>(p);
  }
  return -1;
}

}  // namespace

std::string report_page_head(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>" + html_escape(title) +
         "</title>\n<style>body{font-family:system-ui,sans-serif;margin:1.5em auto;max-width:1200px;padding:0 1em;"
         "color:#222;line-height:1.4}table{border-collapse:collapse;font-size:13px;margin:.5em 0}"
         "td,th{border:1px solid #ccc;padding:3px 7px;text-align:right}td.l,th.l{text-align:left}"
         "th{background:#f4f4f4}.out{color:#a00}.up{color:#060}.down{color:#a00}"
         "svg.plot{display:block;margin:1em 0;width:100%;height:auto;max-width:1100px;min-width:560px}"
         ".wide{overflow-x:auto}code{font-size:12px}table.assumed td:first-child{white-space:nowrap}"
         "</style></head><body>\n";
}

std::string report_page_tail() {
  // Records what the browser actually laid out, so a headless-browser test can check the plots render.
  return "<script>for(const s of document.querySelectorAll('svg.plot')){let a=0;"
         "for(const g of s.querySelectorAll('.series')){const b=g.getBBox();a+=b.width*b.height;}"
         "s.setAttribute('data-drawn-area',String(Math.round(a)));}</script>\n</body></html>\n";
}

std::string html_cell(double v, const char* fmt) {
  if (!std::isfinite(v)) return "&ndash;";
  char buf[40];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}

std::string report_html(const Experiment& e, const SweepOutcome& o, const std::string& root) {
  const std::vector<RunTable> tables{run_table_from_outcome(o, e.name)};
  LineChart cache_chart;
  cache_chart.id = "cache";
  cache_chart.title = "Prefix-cache hit rate vs concurrency";
  cache_chart.x_label = "concurrency (agents, log scale)";
  cache_chart.y_label = "cache hit rate";
  cache_chart.log_x = true;
  StackedBars breakdown{"Step-time breakdown at the largest swept concurrency (share of summed terms)",
                        "compute | memory | communication | overhead",
                        {"compute", "memory", "communication", "overhead"}, {}, {}};
  for (std::size_t s = 0; s < e.systems.size(); ++s) {
    const int plan = shown_plan(e, o, s);
    if (plan < 0) continue;
    const std::string name = e.systems[s].name + " " + deployment_name(e, e.plans[static_cast<std::size_t>(plan)]);
    Series cache{name, {}, {}, {}, {}, false};
    for (const RunResult* r : plan_runs(o.runs, plan_prefix(e, plan), true)) {
      cache.points.emplace_back(r->level, metrics::cache_hit_rate(r->summary));
    }
    cache_chart.series.push_back(cache);
    const auto sweep = plan_runs(o.runs, plan_prefix(e, plan), false);
    if (!sweep.empty()) {
      const RunPower& p = sweep.back()->power;
      breakdown.bars.push_back(name);
      breakdown.values.push_back({p.compute_s, p.memory_s, p.comm_s, p.overhead_s});
    }
  }

  std::string h = report_page_head("agentsim: " + e.name);
  h += "<h1>" + html_escape(e.name) + "</h1>\n<p>Model <b>" + html_escape(e.model.name) + "</b>; " +
       std::to_string(e.systems.size()) + " system(s); " + std::to_string(o.runs.size()) + " runs; seed " +
       std::to_string(e.seed) + "; source revision " + html_escape(source_revision()) +
       ". Per-MW figures divide the modelled runtime facility power (wall power of every occupied system, "
       "idle accelerators included, &times; PUE " + html_cell(e.power.pue, "%.2f") +
       "). Hover a point for the run's numbers.</p>\n";
  h += svg_line_chart(headline_chart(tables));
  h += "<p>One curve per system: its chosen deployment, one point per swept concurrency. Circles mark the speed "
       "read-offs, interpolated between the two bracketing sweep points, never extrapolated.</p>\n";
  h += svg_bar_chart(single_agent_chart(tables)) + svg_line_chart(ttft_chart(tables));
  h += "<h2>Read-offs</h2>\n<div class=\"wide\"><table class=\"readoffs\"><tr><th class=\"l\">system</th>"
       "<th class=\"l\">deployment</th><th>target</th><th>agent tok/s</th><th>total tok/s per MW</th>"
       "<th>total per MW, band</th><th>output tok/s per MW</th><th>agents per MW</th><th>agents</th>"
       "<th class=\"l\">error band regime</th><th class=\"l\">note</th></tr>\n";
  for (const auto& r : o.readoffs) {
    h += std::string("<tr") + (r.in_swept_range ? "" : " class=\"out\"") + "><td class=\"l\">" +
         html_escape(r.system) + "</td><td class=\"l\">" + html_escape(r.deployment) + "</td><td>" + r.target_kind +
         "</td><td>" + html_cell(r.target_agent_tok_s, "%.0f") + "</td><td>" + html_cell(r.total_tok_s_per_mw, "%.0f") +
         "</td><td>" + html_cell(r.total_tok_s_per_mw_lo, "%.0f") + "&ndash;" + html_cell(r.total_tok_s_per_mw_hi, "%.0f") +
         "</td><td>" + html_cell(r.output_tok_s_per_mw, "%.0f") + "</td><td>" + html_cell(r.agents_per_mw, "%.1f") +
         "</td><td>" + html_cell(r.concurrency, "%.1f") + "</td><td class=\"l\">" + html_escape(r.band_regime) +
         "</td><td class=\"l\">" +
         (r.in_swept_range ? "" : "outside the swept range: ") + html_escape(r.note) + "</td></tr>\n";
  }
  h += "</table></div>\n<p>SLO targets are the largest concurrency (found by bisection) meeting the tier. The band is "
       "where the measured figure would lie given the 10th&ndash;90th percentile of the cross-validated errors of "
       "<code>agentsim validate --cv</code> in the run's regime (accelerator generation, latency- or "
       "throughput-bound batch; " + html_escape(e.error_bands_file) + "); empty outside every validated regime.</p>\n"
       "<h2>Engine detail</h2>\n";
  h += svg_stacked_bars(breakdown) + svg_line_chart(cache_chart);
  h += "<p>The cache hit rate is (input &minus; computed input) / input tokens over the window.</p>\n";
  h += rests_on_html(e, root);
  h += "<h2>Plans</h2>\n<table><tr><th class=\"l\">system</th><th class=\"l\">deployment</th>"
       "<th class=\"l\">status</th></tr>\n";
  for (const auto& p : e.plans) {
    h += "<tr><td class=\"l\">" + html_escape(e.systems[static_cast<std::size_t>(p.system)].name) +
         "</td><td class=\"l\">" + html_escape(deployment_name(e, p)) + "</td><td class=\"l\">" +
         (p.pruned.empty() ? std::string("searched") : "pruned: " + html_escape(p.pruned)) + "</td></tr>\n";
  }
  h += "</table>\n";
  return h + report_page_tail();
}

}  // namespace agentsim::exp
