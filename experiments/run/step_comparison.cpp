#include "experiments/run/step_comparison.hpp"

#include <map>
#include <utility>

#include "experiments/config/experiment.hpp"
#include "experiments/run/resolve_run.hpp"
#include "sim/serving/replica_plan.hpp"

namespace agentsim::exp {
namespace {

OpSide side_of(const serving::OpCost& o) {
  OpSide s;
  s.present = true;
  s.time_s = o.op == "host_kv_load" ? o.host_s : o.time_s;
  s.bound = o.bound;
  s.e_compute = o.e_compute;
  s.e_memory = o.e_memory;
  s.dtype = o.dtype;
  s.table = o.note;
  return s;
}

}  // namespace

wl::ParallelPlan default_plan(const wl::ModelSpec& model, const hw::System& system) {
  wl::ParallelPlan plan = serving::choose_plan(model, system);
  plan.engram_on_host = model.engram.host_resident;
  return plan;
}

serving::StepCost price_step(const Catalog& catalog, const std::string& root, const wl::ModelSpec& model,
                             const hw::System& system, const wl::ParallelPlan& plan, const serving::StepBatch& batch,
                             serving::Engine engine) {
  Experiment x;
  x.root = root;
  x.model = model;
  x.systems = {system};
  x.serving.engine = engine;
  x.serving.engine_overhead = catalog.engine(engine);
  Plan& p = x.plans.emplace_back();
  p.label = plan.to_string();
  p.deployment.plan = plan;
  const serving::StepCostOptions opt = resolve_run(x, p).replica.cost;
  return serving::step_cost(batch, model, system, opt);
}

StepComparison compare_steps(const serving::StepCost& a, const serving::StepCost& b) {
  StepComparison out;
  std::map<std::pair<std::string, std::string>, std::size_t> row_of;
  for (const serving::OpCost& o : a.breakdown.ops) {
    const auto key = std::make_pair(o.layer_kind, o.op);
    if (row_of.contains(key)) continue;  // one row per (layer kind, op); the first occurrence
    row_of[key] = out.ops.size();
    OpComparisonRow& r = out.ops.emplace_back();
    r.layer_kind = o.layer_kind;
    r.op = o.op;
    r.a = side_of(o);
  }
  for (const serving::OpCost& o : b.breakdown.ops) {
    const auto key = std::make_pair(o.layer_kind, o.op);
    const auto it = row_of.find(key);
    if (it != row_of.end() && out.ops[it->second].b.present) continue;
    if (it == row_of.end()) {
      row_of[key] = out.ops.size();
      OpComparisonRow& r = out.ops.emplace_back();
      r.layer_kind = o.layer_kind;
      r.op = o.op;
      r.b = side_of(o);
    } else {
      out.ops[it->second].b = side_of(o);
    }
  }
  for (OpComparisonRow& r : out.ops) {
    if (r.a.present && r.b.present && r.a.time_s > 0) r.ratio = r.b.time_s / r.a.time_s;
  }
  out.a_total_s = a.total_s;
  out.b_total_s = b.total_s;
  out.ratio = a.total_s > 0 ? b.total_s / a.total_s : 0;
  out.a_causes = a.breakdown.causes;
  out.b_causes = b.breakdown.causes;
  return out;
}

}  // namespace agentsim::exp
