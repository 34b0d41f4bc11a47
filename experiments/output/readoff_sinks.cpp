#include "experiments/output/readoff_sinks.hpp"

#include <cmath>
#include <cstdio>

#include "experiments/output/nice_ticks.hpp"
#include "sim/core/csv_writer.hpp"

namespace agentsim::exp {

std::string readoffs_csv(const std::vector<ReadoffRow>& rows) {
  core::CsvWriter w({"system", "deployment", "target_kind", "target_agent_tok_s", "total_tok_s_per_mw",
                     "output_tok_s_per_mw", "agents_per_mw", "in_swept_range", "concurrency", "note", "runner_up",
                     "band_regime", "total_tok_s_per_mw_lo", "total_tok_s_per_mw_hi", "agent_tok_s_lo",
                     "agent_tok_s_hi"});
  for (const auto& r : rows) {
    w.text(r.system).text(r.deployment).text(r.target_kind).number(r.target_agent_tok_s);
    w.number(r.total_tok_s_per_mw).number(r.output_tok_s_per_mw).number(r.agents_per_mw);
    w.boolean(r.in_swept_range).number(r.concurrency).text(r.note).text(r.runner_up);
    w.text(r.band_regime).number(r.total_tok_s_per_mw_lo).number(r.total_tok_s_per_mw_hi);
    w.number(r.agent_tok_s_lo).number(r.agent_tok_s_hi);
    w.end_row();
  }
  return w.str();
}

std::string readoff_terminal_table(const std::vector<ReadoffRow>& rows) {
  std::string out;
  char buf[512];
  std::snprintf(buf, sizeof buf, "%-12s %-10s %-12s %7s %12s %12s %10s %8s  %s\n", "system", "deployment", "target",
                "tok/s", "total/MW", "output/MW", "agents/MW", "agents", "note");
  out += buf;
  for (const auto& r : rows) {
    // A row without figures (a pruned plan, a missing run) says why in its note; a figure read
    // outside the swept range is flagged.
    const bool has_figure = std::isfinite(r.total_tok_s_per_mw) || std::isfinite(r.agents_per_mw);
    const std::string note = (r.in_swept_range || !has_figure ? "" : "OUTSIDE SWEPT RANGE: ") + r.note;
    std::snprintf(buf, sizeof buf, "%-12s %-10s %-12s %7s %12s %12s %10s %8s  %.200s\n", r.system.c_str(),
                  r.deployment.c_str(), r.target_kind.c_str(), number_cell(r.target_agent_tok_s, 0).c_str(),
                  number_cell(r.total_tok_s_per_mw, 0).c_str(), number_cell(r.output_tok_s_per_mw, 0).c_str(),
                  number_cell(r.agents_per_mw, 1).c_str(), number_cell(r.concurrency, 1).c_str(), note.c_str());
    out += buf;
  }
  // The per-MW denominator (hwmodels/power_model.hpp, system_power).
  out += "per MW: runtime facility power = wall power of every occupied system (accelerators, idle ones included; "
         "host CPUs and memory; NICs; scale-up switches; fans and misc; PSU loss) x PUE; no scale-out switches\n";
  return out;
}

}  // namespace agentsim::exp
