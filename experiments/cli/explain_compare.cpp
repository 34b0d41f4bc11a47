#include "experiments/cli/explain_compare.hpp"

#include <cstdio>

#include <nlohmann/json.hpp>

#include "experiments/run/resolve_run.hpp"
#include "experiments/run/step_comparison.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/replica_plan.hpp"

namespace agentsim::cli {
namespace {

nlohmann::json side_json(const exp::OpSide& s) {
  if (!s.present) return nullptr;
  return {{"time_s", s.time_s},       {"bound", std::string(serving::to_string(s.bound))},
          {"e_compute", s.e_compute}, {"e_memory", s.e_memory},
          {"dtype", s.dtype},         {"table", s.table}};
}

nlohmann::json causes_json(const serving::CauseTotals& k) {
  return {{"compute_s", k.compute_s}, {"hbm_s", k.hbm_s},     {"host_link_s", k.host_link_s},
          {"network_s", k.network_s}, {"floor_s", k.floor_s}, {"overhead_s", k.overhead_s}};
}

std::string ratio_text(double b, double a) {
  if (!(a > 0)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3f", b / a);
  return buf;
}

}  // namespace

int explain_compare(const CompareRequest& r) {
  const hw::System& first = r.experiment.systems.at(0);
  const hw::System& other = r.catalog->systems.get(r.other);
  exp::Experiment x = r.experiment;
  exp::Plan& p = x.plans.at(0);
  const wl::ParallelPlan plan_a = p.deployment.plan;
  wl::ParallelPlan plan_b = plan_a;
  if (const serving::PlanCheck check = serving::check_plan(r.placed, other, plan_b); !check.ok) {
    if (r.plan_given) throw core::Error("--compare " + r.other + ": plan " + plan_a.to_string() + ": " + check.reason);
    plan_b = serving::choose_plan(r.placed, other);
    plan_b.engram_on_host = r.placed.engram.host_resident;
  }
  x.systems = {other};
  p.deployment.plan = plan_b;
  p.label = plan_b.to_string();
  serving::StepCostOptions opt = exp::resolve_run(x, p).replica.cost;
  opt.host_kv_load_tokens = r.host_kv_tokens;
  const serving::StepCost second = serving::step_cost(r.batch, x.model, other, opt);
  const exp::StepComparison c = exp::compare_steps(r.first, second);
  // The measured pair as validate wrote it (b over a, whichever of the two is A here): the medians
  // of the ratios do not invert exactly, so they are quoted the way they were taken.
  const calib::SystemPair* v = r.validated != nullptr ? r.validated->find(first.name, other.name) : nullptr;

  if (r.json) {
    nlohmann::json j;
    j["model"] = x.model.name;
    j["batch"] = r.batch_text;
    j["engine"] = std::string(serving::to_string(x.serving.engine));
    j["a"] = {{"system", first.name}, {"plan", plan_a.to_string()}, {"total_s", c.a_total_s}, {"causes", causes_json(c.a_causes)}};
    j["b"] = {{"system", other.name}, {"plan", plan_b.to_string()}, {"total_s", c.b_total_s}, {"causes", causes_json(c.b_causes)}};
    j["ratio"] = c.ratio;
    nlohmann::json ops = nlohmann::json::array();
    for (const exp::OpComparisonRow& o : c.ops)
      ops.push_back({{"layer_kind", o.layer_kind}, {"op", o.op}, {"a", side_json(o.a)}, {"b", side_json(o.b)}, {"ratio", o.ratio}});
    j["ops"] = ops;
    j["validated"] = nullptr;
    if (v != nullptr) {
      j["validated"] = {{"file", r.validated_path},
                        {"metric", r.validated->metric},
                        {"a", v->a},
                        {"b", v->b},
                        {"pairs", v->pairs},
                        {"same_winner", v->same_winner},
                        {"decided", v->decided},
                        {"decided_same_winner", v->decided_same_winner},
                        {"measured_ratio_median", v->measured_ratio_median},
                        {"predicted_ratio_median", v->predicted_ratio_median},
                        {"abs_ratio_error_median_pct", v->abs_ratio_error_median_pct}};
    }
    std::printf("%s\n", j.dump(2).c_str());
    return 0;
  }
  std::printf("%s, batch %s, engine %s: A = %s (plan %s), B = %s (plan %s)%s\n\n", x.model.name.c_str(),
              r.batch_text.c_str(), std::string(serving::to_string(x.serving.engine)).c_str(), first.name.c_str(),
              plan_a.to_string().c_str(), other.name.c_str(), plan_b.to_string().c_str(),
              plan_a.to_string() == plan_b.to_string() ? "" : " (plans differ: the first is not valid on B)");
  std::printf("%-28s %-15s %10s %-9s %10s %-9s %7s  %s\n", "layer kind", "op", "A us", "A bound", "B us", "B bound",
              "B/A", "A table | B table");
  for (const exp::OpComparisonRow& o : c.ops) {
    std::printf("%-28s %-15s %10.1f %-9s %10.1f %-9s %7s  %s | %s\n", o.layer_kind.c_str(), o.op.c_str(),
                o.a.time_s * 1e6, o.a.present ? std::string(serving::to_string(o.a.bound)).c_str() : "-",
                o.b.time_s * 1e6, o.b.present ? std::string(serving::to_string(o.b.bound)).c_str() : "-",
                o.a.present && o.b.present ? ratio_text(o.b.time_s, o.a.time_s).c_str() : "-",
                o.a.table.empty() ? "(constant)" : o.a.table.c_str(), o.b.table.empty() ? "(constant)" : o.b.table.c_str());
  }
  const serving::CauseTotals &ka = c.a_causes, &kb = c.b_causes;
  std::printf("\nby cause (ms, A -> B): compute %.3f -> %.3f | HBM %.3f -> %.3f | host link %.3f -> %.3f | network "
              "%.3f -> %.3f | floors+latency %.3f -> %.3f | overhead %.3f -> %.3f\n",
              ka.compute_s * 1e3, kb.compute_s * 1e3, ka.hbm_s * 1e3, kb.hbm_s * 1e3, ka.host_link_s * 1e3,
              kb.host_link_s * 1e3, ka.network_s * 1e3, kb.network_s * 1e3, ka.floor_s * 1e3, kb.floor_s * 1e3,
              ka.overhead_s * 1e3, kb.overhead_s * 1e3);
  std::printf("step: A %.3f ms, B %.3f ms, B/A %s\n", c.a_total_s * 1e3, c.b_total_s * 1e3,
              ratio_text(c.b_total_s, c.a_total_s).c_str());
  if (r.validated == nullptr) return 0;
  if (v == nullptr) {
    std::printf("\nmeasured: no pair of runs of the same work on %s and %s in %s\n", first.name.c_str(),
                other.name.c_str(), r.validated_path.c_str());
    return 0;
  }
  std::printf("\nmeasured: %d pairs of runs of the same work on both (every model and engine in %s): %s of %s "
              "over %s %.2f measured, %.2f predicted out of sample (medians); the faster one predicted faster in %d "
              "of the %d pairs %.0f%% or more apart; median absolute ratio error %.1f%%\n",
              v->pairs, r.validated_path.c_str(), r.validated->metric.c_str(), v->b.c_str(), v->a.c_str(),
              v->measured_ratio_median, v->predicted_ratio_median, v->decided_same_winner, v->decided,
              (calib::kDecidedRatio - 1) * 100, v->abs_ratio_error_median_pct);
  return 0;
}

}  // namespace agentsim::cli
