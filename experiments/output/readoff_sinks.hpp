#pragma once
// Sinks of the read-off table: readoffs.csv and its terminal table. They format; they compute nothing.
#include <string>
#include <vector>

#include "experiments/output/readoff_table.hpp"

namespace agentsim::exp {

// Columns: system, deployment, target_kind, target_agent_tok_s, total_tok_s_per_mw,
// output_tok_s_per_mw, agents_per_mw, in_swept_range, then concurrency, note and runner_up.
std::string readoffs_csv(const std::vector<ReadoffRow>& rows);
std::string readoff_terminal_table(const std::vector<ReadoffRow>& rows);

}  // namespace agentsim::exp
