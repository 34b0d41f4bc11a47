#include "experiments/run/run_accounting.hpp"

#include <algorithm>

namespace agentsim::exp {

void account_run(RunResult& r, const Experiment& e, const RunSpec& spec, const metrics::Recorder& rec,
                 int accelerators_in_use) {
  const hw::System& sys = spec.system;
  const double start_s = spec.warmup_s, end_s = spec.end_s;
  const int per_replica = std::max(1, spec.devices_per_replica());
  // Disaggregated: a pod's first prefill_replicas / pods replicas prefill, on the prefill plan's devices.
  const serving::ClusterOptions& c = spec.cluster;
  const int pod_prefill = c.prefill_replicas > 0 ? c.prefill_replicas / std::max(1, spec.pods) : 0;
  const int prefill_devices = c.prefill_devices_per_replica > 0 ? c.prefill_devices_per_replica : per_replica;
  RunPower& p = r.power;
  p.accelerators = accelerators_in_use;
  p.systems = std::max(1, (accelerators_in_use + sys.accelerators - 1) / std::max(1, sys.accelerators));
  p.accelerators_total = p.systems * sys.accelerators;
  hw::EnergyMeter meter(sys, p.systems, e.power);
  for (const auto& s : rec.steps()) {
    const double dur = s.end_s - s.start_s;
    const double overlap = std::min(s.end_s, end_s) - std::max(s.start_s, start_s);
    if (overlap <= 0 || dur <= 0) continue;
    // A fast-forwarded record stands for `steps` identical steps spanning [start, end).
    double f = overlap / dur * static_cast<double>(s.steps);
    // The parts are the priced seconds and the span whole ticks (each step rounded to the
    // nearest): where rounding left the span shorter than the parts, the parts fill the span.
    const double step_s = hw::StepTimes{s.compute_s, s.memory_s, s.comm_s, s.overhead_s}.duration_s();
    if (step_s * f > overlap) f = overlap / step_s;
    hw::StepTimes b{s.compute_s * f, s.memory_s * f, s.comm_s * f, s.overhead_s * f};
    meter.add_step(b, s.replica < pod_prefill ? prefill_devices : per_replica);
    p.compute_s += b.compute_s;
    p.memory_s += b.memory_s;
    p.comm_s += b.comm_s;
    p.overhead_s += b.overhead_s;
    p.busy_s += overlap;
    if (e.record_steps && s.end_s >= start_s && s.end_s < end_s) r.steps.push_back(s);
  }
  const hw::SystemPower sp = meter.runtime(end_s - start_s);
  p.power_w = sp.facility_w;
  p.accelerators_w = sp.accelerators_w;
  p.provisioned_w = hw::provisioned_power_w(sys, e.power) * p.systems;
  r.system = sys.name;
  if (e.record_requests) {
    for (const auto& q : rec.requests()) {
      if (q.last_token_s >= start_s && q.last_token_s < end_s) r.requests.push_back(q);
    }
  }
}

}  // namespace agentsim::exp
