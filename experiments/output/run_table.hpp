#pragma once
// The figures a report draws, per run and per read-off, in one shape whether they come
// from a sweep just finished or are read back from a run folder (summary.csv, readoffs.csv).
#include <string>
#include <vector>

#include "experiments/output/readoff_table.hpp"
#include "experiments/run/sweep_outcome.hpp"

namespace agentsim::exp {

struct RunPoint {
  std::string system, deployment;
  double level = 0;  // agents (closed loop), sessions/s or time scale
  double agent_output_tok_s_p50 = 0;
  double total_tok_s_per_mw = 0;  // NaN without power
  double output_tok_s_per_mw = 0;
  double ttft_s_p90 = 0;
  bool bisection = false;
  // Error band (experiments/run/prediction_bands.hpp); NaN outside every validated regime.
  double total_tok_s_per_mw_lo = 0, total_tok_s_per_mw_hi = 0;
  double agent_output_tok_s_p50_lo = 0, agent_output_tok_s_p50_hi = 0;
};

struct RunTable {
  std::string label;                 // how the comparison names this run (the folder's name)
  std::vector<RunPoint> points;      // runs that ran, in file order
  std::vector<ReadoffRow> readoffs;  // per system and target, the chosen plan (plan index unknown: -1)
};

RunTable run_table_from_outcome(const SweepOutcome& o, const std::string& label);

// Reads DIR/summary.csv and DIR/readoffs.csv (the error-band columns where present); a missing
// folder or file, or a malformed row, is a core::Error naming the file.
RunTable read_run_table(const std::string& dir);

// The deployment each system's curve shows: its first read-off's, else its first run's.
std::string shown_deployment(const RunTable& t, const std::string& system);
// Systems in first-appearance order (read-offs first, then runs).
std::vector<std::string> table_systems(const RunTable& t);
// Sweep points (no bisection runs unless asked) of one system and deployment, by level.
std::vector<RunPoint> curve_points(const RunTable& t, const std::string& system,
                                   const std::string& deployment, bool with_bisection);

}  // namespace agentsim::exp
