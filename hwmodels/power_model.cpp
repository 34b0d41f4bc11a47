#include "hwmodels/power_model.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace agentsim::hw {

double accelerator_activity(const Accelerator& a, const StepTimes& step) {
  const double total = step.duration_s();
  if (total <= 0) return 0.0;
  const double f_mem = a.decode_power_fraction;
  const double roof = std::max(step.compute_s, step.memory_s);
  // Compute-bound work keeps the tensor cores busy: full activity. Memory-bound
  // work idles them in proportion to compute_s / memory_s.
  const double roof_activity = roof > 0 ? f_mem + (1.0 - f_mem) * std::min(1.0, step.compute_s / roof) : 0.0;
  return (roof * roof_activity + step.comm_s * f_mem) / total;
}

double accelerator_power_w(const Accelerator& a, double activity) {
  return a.idle_w + (a.tdp_w - a.idle_w) * std::clamp(activity, 0.0, 1.0);
}

double accelerator_energy_j(const Accelerator& a, const StepTimes& step) {
  return accelerator_power_w(a, accelerator_activity(a, step)) * step.duration_s();
}

namespace {

SystemPower assemble(const System& s, double mean_accelerator_w, double cpu_load, double pue) {
  SystemPower p;
  p.accelerators_w = mean_accelerator_w * s.accelerators;
  p.host_cpus_w = s.host.cpus * s.host.cpu_tdp_w * cpu_load;
  p.host_memory_w = s.power.host_memory_w;
  p.nics_w = s.scale_out.nics * s.scale_out.nic_w;
  // NVL72-class racks list their NVLink switch trays; others one figure.
  p.switches_w = s.power.nvlink_switch_trays > 0 ? s.power.nvlink_switch_trays * s.power.switch_tray_w
                                                 : s.power.switch_w;
  p.fans_misc_w = s.power.fans_misc_w;
  const double dc = p.accelerators_w + p.host_cpus_w + p.host_memory_w + p.nics_w + p.switches_w + p.fans_misc_w;
  p.wall_w = dc / s.power.psu_efficiency;
  p.psu_loss_w = p.wall_w - dc;
  p.facility_w = p.wall_w * pue;
  return p;
}

void check(const System& s, const PowerOptions& opt) {
  if (!(opt.pue >= 1.0)) throw core::Error("PUE must be at least 1");
  if (!(s.power.psu_efficiency > 0 && s.power.psu_efficiency <= 1)) {
    throw core::Error("system '" + s.name + "' has no PSU efficiency in (0, 1]");
  }
}

}  // namespace

SystemPower system_power(const System& s, double mean_accelerator_w, const PowerOptions& opt) {
  check(s, opt);
  return assemble(s, mean_accelerator_w, opt.host_cpu_load, opt.pue);
}

SystemPower system_power_at_tdp(const System& s, const PowerOptions& opt) {
  check(s, opt);
  return assemble(s, s.accelerator.tdp_w, 1.0, opt.pue);
}

double provisioned_power_w(const System& s, const PowerOptions& opt) {
  check(s, opt);
  return s.power.nameplate_w * opt.pue;
}

EnergyMeter::EnergyMeter(const System& s, int systems, PowerOptions opt)
    : system_(s), systems_(systems), opt_(opt) {
  check(s, opt);
  if (systems < 1) throw core::Error("an energy meter needs at least one system");
}

void EnergyMeter::add_step(const StepTimes& step, int accelerators) {
  step_energy_j_ += accelerators * accelerator_energy_j(system_.accelerator, step);
  busy_s_ += accelerators * step.duration_s();
}

SystemPower EnergyMeter::runtime(double window_s) const {
  if (!(window_s > 0)) throw core::Error("the power window must be positive");
  const double accel_seconds = static_cast<double>(system_.accelerators) * systems_ * window_s;
  if (busy_s_ > accel_seconds * (1 + 1e-9)) {
    throw core::Error("steps cover more accelerator time than the window holds");
  }
  const double idle_j = (accel_seconds - busy_s_) * system_.accelerator.idle_w;
  const double mean_w = (step_energy_j_ + idle_j) / accel_seconds;
  SystemPower one = assemble(system_, mean_w, opt_.host_cpu_load, opt_.pue);
  const double n = systems_;
  for (double* f : {&one.accelerators_w, &one.host_cpus_w, &one.host_memory_w, &one.nics_w, &one.switches_w,
                    &one.fans_misc_w, &one.psu_loss_w, &one.wall_w, &one.facility_w}) {
    *f *= n;
  }
  return one;
}

}  // namespace agentsim::hw
