#include "experiments/validation_runner.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "experiments/catalog.hpp"
#include "experiments/runner.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parallel_for.hpp"
#include "sim/serving/replica_plan.hpp"
#include "workloads/parallel_plan.hpp"
#include "workloads/session_generator.hpp"

namespace agentsim::exp {
namespace {

Experiment row_experiment(const Experiment& base, const Catalog& catalog, const calib::MeasuredRun& row,
                          const std::string& file) {
  const auto at = [&](const char* col) { return core::SourceLocation{file, row.line, col}; };
  Experiment e = base;
  e.model = catalog.models.get(row.model, at("model"));
  const hw::System system = catalog.systems.get(row.system, at("system"));
  // The row's plan with the deployment's engine options at their defaults, checked as a YAML plan is.
  Plan plan;
  plan.label = row.plan;
  try {
    plan.deployment.plan = wl::parse_parallel_plan(row.plan);
  } catch (const core::Error& err) {
    throw core::Error(at("plan"), err.detail());
  }
  plan.deployment.plan.engram_on_host = e.model.engram.host_resident;
  // measured_runs.csv records no speculative method: its rows ran without a drafter.
  plan.deployment.spec_mode = SpecMode::kOff;
  const serving::PlanCheck check = serving::check_plan(e.model, system, plan.deployment.plan);
  if (!check.ok) throw core::Error(at("plan"), check.reason);
  e.systems = {system};
  e.plans = {plan};
  // As many replicas as the measurement's GPUs hold (not the system filled: a 1-GPU row is one GPU).
  e.serving.replicas = std::max(1, row.gpus / std::max(1, plan.deployment.plan.devices()));
  // Fixed-length one-turn sessions: isl tokens in, osl out, sent back to back.
  WorkloadConfig& w = e.workload;
  w.mode = ReplayMode::kClosedLoop;
  w.use_generator = true;
  w.trace_path.clear();
  w.generator = wl::GeneratorConfig{};
  w.generator.turns = {1, 1};
  w.generator.initial_context_tokens = {static_cast<double>(row.isl), static_cast<double>(row.isl)};
  w.generator.output_tokens = {static_cast<double>(row.osl), static_cast<double>(row.osl)};
  w.generator.max_context_tokens = row.isl + row.osl;
  w.generated_sessions = std::max(64, static_cast<int>(row.concurrency) * 4);
  w.concurrency = {static_cast<int>(row.concurrency)};
  w.levels = {row.concurrency};
  w.random_start = false;
  e.record_requests = true;
  return e;
}

std::vector<double> predictions(const RunResult& r) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> p(calib::kMeasuredMetricCount, nan);
  const auto set = [&](const char* name, double v) {
    if (std::isfinite(v) && v > 0) p[calib::measured_metric_index(name)] = v;
  };
  const auto& s = r.summary;
  const double gpus = r.power.accelerators > 0 ? r.power.accelerators : 1;
  set("output_tok_s_per_gpu", s.output_tok_s / gpus);
  set("total_tok_s_per_gpu", s.total_tok_s / gpus);
  set("agent_output_tok_s", s.agent_output_tok_s_p50);
  double ttft = 0;
  for (const auto& q : r.requests) ttft += q.first_token_s - q.arrival_s;
  if (!r.requests.empty()) set("ttft_s_mean", ttft / static_cast<double>(r.requests.size()));
  set("tpot_s_mean", s.itl_s_mean);
  // The median of per-request TPOT is the reciprocal of the median per-request speed.
  set("tpot_s_median", 1.0 / s.agent_output_tok_s_p50);
  if (r.power.accelerators_total > 0) set("power_w_per_gpu", r.power.accelerators_w / r.power.accelerators_total);
  return p;
}

}  // namespace

std::vector<std::vector<double>> predict_measured_runs(const Experiment& base, const std::string& root,
                                                       const std::vector<calib::MeasuredRun>& runs,
                                                       const std::string& measured_file, int threads) {
  const Catalog catalog = load_catalog(root);
  std::vector<Experiment> exps;
  exps.reserve(runs.size());
  for (const auto& row : runs) exps.push_back(row_experiment(base, catalog, row, measured_file));
  std::vector<std::vector<double>> out(runs.size());
  core::parallel_for(runs.size(), threads, [&](std::size_t i) {
    const Experiment& e = exps[i];
    const wl::Trace trace = wl::generate_sessions(e.workload.generator, e.workload.generated_sessions, e.seed);
    RunResult r = run_point(e, trace, e.workload.levels[0]);
    if (r.summary.requests == 0) {
      throw core::Error(core::SourceLocation{measured_file, runs[i].line, "concurrency"},
                        "no request completed in the measurement window; lengthen the base experiment's window");
    }
    out[i] = predictions(r);
  });
  return out;
}

}  // namespace agentsim::exp
