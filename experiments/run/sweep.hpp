#pragma once
// A sweep: every valid plan of the experiment x every load level, as runs with
// stable ids ("hgx-h200/tp=8/16") and seeds derived from the master seed and the
// level, so every system and deployment sees the same agents at a given level
// (common random numbers) and a run's numbers never depend on which others ran.
#include <cstdint>
#include <string>
#include <vector>

#include "experiments/config/experiment.hpp"
#include "experiments/run/runner.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::exp {

struct SweepPoint {
  std::string id;
  int plan = 0;            // index into Experiment::plans
  double level = 0;        // agents (closed loop), sessions/s or time scale
  std::uint64_t seed = 0;
  bool bisection = false;  // added by the SLO bisection rather than the sweep list
};

SweepPoint make_point(const Experiment& e, int plan, double level, bool bisection = false);
// Valid plans in order, each with every level of the workload, in order.
std::vector<SweepPoint> expand_sweep(const Experiment& e);
// Runs one point; an engine error (e.g. the model does not fit) becomes RunResult::skipped.
RunResult run_sweep_point(const Experiment& e, const wl::Trace& sessions, const SweepPoint& p, int threads = 1);

}  // namespace agentsim::exp
