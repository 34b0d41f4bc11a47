#pragma once
// Fitting the serving-level parameters of `agentsim validate --cv` and their
// cross-validated error. The fitted set is small, physical and listed:
// - one number per serving engine, the host time of a graph-replayed decode step
//   (EngineOverhead::graph_fixed_s; the eager step keeps its catalog margin above it);
// - one number per serving engine, the request's path outside the engine loop
//   (EngineOverhead::request_latency_s, serving::RequestPath), fitted to the TTFT metrics only;
// - one number for every speculative row measured on random-token prompts with no stated
//   acceptance (InferenceX): the drafter's mean tokens per verify step on such prompts
//   (the card's per-position acceptance scaled to it, serving::with_tokens_per_step).
// Each is chosen to minimise the MAPE of kFitMetrics over its rows, alternating between
// them; cross-validation leaves one (system, model) group out: fit without it, predict it.
//
// Cost: a parameter that adds host time to every step moves time-like metrics (TPOT,
// TTFT) almost affinely and rate-like metrics (tok/s) as 1 / affine, so each row is
// simulated at a few grid values of its parameters, the fit searches the interpolation
// (rates interpolated as reciprocals), and every number reported is then simulated
// again at the fitted values (in-sample) or at its fold's values (CV).
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "calibration/measured_runs.hpp"
#include "sim/serving/engine_overhead.hpp"

namespace agentsim::exp {

// The metrics the host-time and acceptance fits minimise the MAPE of (TTFT is the request
// latency's, kLatencyFitMetrics; power has its own model).
inline constexpr std::string_view kFitMetrics[] = {"output_tok_s_per_gpu", "total_tok_s_per_gpu", "agent_output_tok_s",
                                                   "tpot_s_mean", "tpot_s_median"};

// The metrics the request latency is fitted to: a request's path adds to its time to the first
// chunk, and barely moves the rest (a closed-loop slot idles for it once a request).
inline constexpr std::string_view kLatencyFitMetrics[] = {"ttft_s_mean", "ttft_s_median"};
// The range the request latency is searched in (seconds).
inline constexpr double kLatencyMax_s = 0.5;

// Grid of the engines' host time (seconds) each row is simulated at.
inline constexpr double kFitGrid[] = {0.0, 0.5e-3, 1.5e-3, 4e-3};
// Grid of the random-prompt acceptance (tokens per verify step) each such row is simulated at
// (1: every draft rejected; DeepSeek-R1's card, for comparison, is 2.82 at 3 drafts).
inline constexpr double kAcceptGrid[] = {1.0, 1.5, 2.0, 3.0};

// Predictions of one row at each grid value: at[g][m].
struct GridPredictions {
  std::vector<std::vector<double>> at;
};

// The row's predictions at `theta` interpolated between the grid values (clamped to the grid).
std::vector<double> interpolate(const GridPredictions& g, double theta, std::span<const double> grid = kFitGrid);

// Mean |error| (%) over the (row, metric) pairs of kFitMetrics that both sides have.
double fit_mape(const std::vector<const calib::MeasuredRun*>& runs, const std::vector<std::vector<double>>& predicted);

// The parameter in [grid front, grid back] minimising fit_mape over `rows` (indices into
// runs/grids), by a scan in 400 steps and a refinement; NaN when no row has a fit metric.
double fit_parameter(const std::vector<calib::MeasuredRun>& runs, const std::vector<GridPredictions>& grids,
                     const std::vector<std::size_t>& rows, std::span<const double> grid = kFitGrid);

// The request latency in [0, kLatencyMax_s] minimising the MAPE of kLatencyFitMetrics over `rows`,
// given each row's predictions `at_latency` simulated at a request latency of `simulated_s`: a
// latency L predicts TTFT + (L - simulated_s) (the path is a fixed delay before the engine; the
// engine's own share barely moves, and every reported number is simulated again at the fitted
// value). Scanned in 0.1 ms steps; NaN when no row has a TTFT.
double fit_request_latency(const std::vector<calib::MeasuredRun>& runs,
                           const std::vector<std::vector<double>>& at_latency, double simulated_s,
                           const std::vector<std::size_t>& rows);

}  // namespace agentsim::exp
