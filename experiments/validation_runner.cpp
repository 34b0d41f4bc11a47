#include "experiments/validation_runner.hpp"

#include <cmath>
#include <limits>

#include "experiments/catalog.hpp"
#include "experiments/deployment_config.hpp"
#include "experiments/runner.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parallel_for.hpp"
#include "workloads/session_generator.hpp"

namespace agentsim::exp {
namespace {

// "tp=8,ep=1" as a YAML mapping, so the strict deployment decoder checks it.
YAML::Node plan_node(const std::string& plan, const core::SourceLocation& where) {
  YAML::Node n(YAML::NodeType::Map);
  std::size_t start = 0;
  while (start < plan.size()) {
    const std::size_t comma = plan.find(',', start);
    const std::string item = plan.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    const std::size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size()) {
      throw core::Error(where, "expected a plan like tp=8,ep=1, found '" + plan + "'");
    }
    n[item.substr(0, eq)] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return n;
}

Experiment row_experiment(const Experiment& base, const Catalog& catalog, const calib::MeasuredRun& row,
                          const std::string& file) {
  const auto at = [&](const char* col) { return core::SourceLocation{file, row.line, col}; };
  Experiment e = base;
  e.model = catalog.models.get(row.model, at("model"));
  e.system = catalog.systems.get(row.system, at("system"));
  const YamlNode plan(plan_node(row.plan, at("plan")), file, "plan");
  try {
    e.deployment = decode_deployment(&plan, e.model, e.system);
  } catch (const core::Error& err) {
    throw core::Error(at("plan"), err.detail());
  }
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
