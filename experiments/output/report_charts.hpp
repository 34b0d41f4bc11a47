#pragma once
// The report's charts built from run tables, shared by report.html (one table) and the
// comparison (several, the first the baseline): the headline per-MW curves, TTFT and
// single-agent speed. Series are named "system deployment", prefixed by the run label
// when there is more than one table.
#include <string>
#include <vector>

#include "experiments/output/run_table.hpp"
#include "experiments/output/svg_plot.hpp"

namespace agentsim::exp {

// Total tok/s per MW (millions) against per-agent output speed p50; one curve per system
// (its shown deployment) per table, shaded with its error band; speed read-offs circled with
// their band as an error bar and labelled "100 tok/s: 620 M".
LineChart headline_chart(const std::vector<RunTable>& tables);
// TTFT p90 (log) against concurrency, sweep and bisection runs.
LineChart ttft_chart(const std::vector<RunTable>& tables);
// Per system, the read-off table's single-agent speed (its fastest plan at concurrency 1) with
// its error band; without single-agent read-offs (open loop), the curve's plan at its lowest level.
BarChart single_agent_chart(const std::vector<RunTable>& tables);

// "100 tok/s: 620 M" (a speed read-off's label; readable_number's digits, never an exponent).
std::string readoff_label(double target_agent_tok_s, double total_tok_s_per_mw);

}  // namespace agentsim::exp
