#include "calibration/disagg_worker_gpus.hpp"

#include <regex>
#include <string>

namespace agentsim::calib {

namespace {

long long plan_gpus(std::string_view plan) {
  const PlanDegrees g = plan_degrees(plan);
  return static_cast<long long>(g.tp) * g.dp * g.pp;
}

}  // namespace

DisaggregatedPlan disagg_on_stated_gpus(const DisaggregatedPlan& d, std::string_view plan_text, std::string_view notes,
                                        bool inferencex_sglang) {
  if (!d.plan.ok()) return d;
  static const std::regex kStated(R"(disagg: (\d{1,6}) prefill \+ (\d{1,6}) decode GPUs)");
  const std::string n(notes);
  std::smatch m;
  if (!std::regex_search(n, m, kStated)) return d;
  const long long prefill_gpus = std::stoll(m[1].str()), decode_gpus = std::stoll(m[2].str());
  const long long plan_prefill = d.prefill_replicas * plan_gpus(d.prefill_plan);
  const long long plan_decode = d.decode_replicas * plan_gpus(d.plan.value);
  if (plan_prefill == prefill_gpus && plan_decode == decode_gpus) return d;

  DisaggregatedPlan out = d;
  const std::string stated = "its notes state " + m[1].str() + " prefill and " + m[2].str() +
                             " decode GPUs, its plan '" + std::string(plan_text) + "' fills " +
                             std::to_string(plan_prefill) + " and " + std::to_string(plan_decode);
  const bool placeholders = plan_gpus(d.prefill_plan) == 1 && plan_gpus(d.plan.value) == 1;
  if (!inferencex_sglang || !placeholders) {
    out.plan = Mapped{"", "disaggregated plan: " + stated};
    out.prefill_replicas = out.decode_replicas = 0;
    return out;
  }
  const auto worker = [](long long gpus, int workers, bool attention_dp) {
    const std::string g = std::to_string(gpus / workers);
    return canonical_plan(attention_dp ? "dp=" + g + ",ep=" + g : "tp=" + g);
  };
  const auto shares = [](long long gpus, int workers) { return gpus >= workers && gpus % workers == 0; };
  if (!shares(prefill_gpus, d.prefill_replicas) || !shares(decode_gpus, d.decode_replicas)) {
    out.plan = Mapped{"", "disaggregated plan: " + stated + ", and its workers cannot share the stated GPUs evenly"};
    out.prefill_replicas = out.decode_replicas = 0;
    return out;
  }
  out.prefill_plan = worker(prefill_gpus, d.prefill_replicas, d.prefill_attention_dp);
  out.plan = Mapped{worker(decode_gpus, d.decode_replicas, d.decode_attention_dp), ""};
  return out;
}

}  // namespace agentsim::calib
