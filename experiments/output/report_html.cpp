#include "experiments/output/report_html.hpp"
#include "experiments/config/deployment_name.hpp"

#include <cmath>
#include <cstdio>

#include "experiments/output/nice_ticks.hpp"
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
  // Records what the browser actually laid out, so a headless-browser test can check the plots
  // render and that no two read-off labels overlap: each plot's drawn area, each label's box.
  return "<script>for(const s of document.querySelectorAll('svg.plot')){let a=0;"
         "for(const g of s.querySelectorAll('.series')){const b=g.getBBox();a+=b.width*b.height;}"
         "s.setAttribute('data-drawn-area',String(Math.round(a)));"
         "s.setAttribute('data-label-boxes',[...s.querySelectorAll('.readoff-label')].map(t=>{"
         "const r=t.getBoundingClientRect();return [r.left,r.top,r.right,r.bottom].map(v=>v.toFixed(1)).join(',');"
         "}).join(';'));}</script>\n</body></html>\n";
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
       ". Per-MW figures divide the modelled runtime facility power (wall power of every occupied system: "
       "accelerators, idle ones included, host CPUs and memory, NICs, scale-up switches, fans and misc and PSU loss; "
       "no scale-out switches; &times; PUE " + html_cell(e.power.pue, "%.2f") +
       "). Hover a point for the run's numbers.</p>\n";
  h += svg_line_chart(headline_chart(tables));
  h += "<p>One curve per system: its chosen deployment, one point per swept concurrency. Circles mark the speed "
       "read-offs, interpolated between the two bracketing sweep points, never extrapolated. The shading around a "
       "curve and the bar through a read-off are the error band (below the read-off table); none outside every "
       "validated regime. The single-agent bars are the read-off table's single-agent rows: each system's fastest "
       "plan with one agent, which may differ from the plan of its curve.</p>\n";
  h += svg_bar_chart(single_agent_chart(tables)) + svg_line_chart(ttft_chart(tables));
  h += "<h2>Read-offs</h2>\n<div class=\"wide\"><table class=\"readoffs\"><tr><th class=\"l\">system</th>"
       "<th class=\"l\">deployment</th><th>target</th><th>agent tok/s</th><th>total tok/s per MW (M)</th>"
       "<th>total per MW, band (M)</th><th>output tok/s per MW (M)</th><th>agents per MW</th><th>agents</th>"
       "<th class=\"l\">error band regime</th><th class=\"l\">note</th></tr>\n";
  for (const auto& r : o.readoffs) {
    const bool has_figure = std::isfinite(r.total_tok_s_per_mw) || std::isfinite(r.agents_per_mw);
    const bool has_band = std::isfinite(r.total_tok_s_per_mw_lo) && std::isfinite(r.total_tok_s_per_mw_hi);
    h += std::string("<tr") + (r.in_swept_range || !has_figure ? "" : " class=\"out\"") + "><td class=\"l\">" +
         html_escape(r.system) + "</td><td class=\"l\">" + html_escape(r.deployment) + "</td><td>" + r.target_kind +
         "</td><td>" + readable_number(r.target_agent_tok_s) + "</td><td>" + readable_number(r.total_tok_s_per_mw / 1e6) +
         "</td><td>" +
         (has_band ? readable_number(r.total_tok_s_per_mw_lo / 1e6) + "&ndash;" +
                         readable_number(r.total_tok_s_per_mw_hi / 1e6)
                   : std::string("&ndash;")) +
         "</td><td>" + readable_number(r.output_tok_s_per_mw / 1e6) + "</td><td>" + readable_number(r.agents_per_mw, 4) +
         "</td><td>" + readable_number(r.concurrency, 4) + "</td><td class=\"l\">" + html_escape(r.band_regime) +
         "</td><td class=\"l\">" +
         (r.in_swept_range || !has_figure ? "" : "outside the swept range: ") + html_escape(r.note) + "</td></tr>\n";
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
