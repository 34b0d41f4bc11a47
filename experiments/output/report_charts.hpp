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
// (its shown deployment) per table; speed read-offs circled and labelled "40 tok/s: 3.2 M".
LineChart headline_chart(const std::vector<RunTable>& tables);
// TTFT p90 (log) against concurrency, sweep and bisection runs.
LineChart ttft_chart(const std::vector<RunTable>& tables);
// Per system, per-agent p50 speed at concurrency 1 (or the lowest swept level, said so).
BarChart single_agent_chart(const std::vector<RunTable>& tables);

// "40 tok/s: 3.2 M" (a speed read-off's label).
std::string readoff_label(double target_agent_tok_s, double total_tok_s_per_mw);

}  // namespace agentsim::exp
