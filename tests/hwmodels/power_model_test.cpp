#include "hwmodels/power_model.hpp"

#include <gtest/gtest.h>

#include "tests/hwmodels/hw_fixtures.hpp"

namespace agentsim::hw {
namespace {


// H200 from the catalog: idle 80 W, TDP 700 W, decode fraction 0.35.
const Accelerator& h200() { return test::hw_fixtures().accelerators.get("h200"); }

TEST(AcceleratorPower, IdleDrawsIdlePower) {
  EXPECT_EQ(accelerator_activity(h200(), StepTimes{}), 0.0);
  EXPECT_DOUBLE_EQ(accelerator_power_w(h200(), 0.0), 80.0);
  // A step of pure overhead (host scheduling) keeps the GPU at idle power.
  EXPECT_DOUBLE_EQ(accelerator_energy_j(h200(), StepTimes{0, 0, 0, 0.01}), 80.0 * 0.01);
}

TEST(AcceleratorPower, ComputeBoundStepDrawsTdp) {
  // 10 ms compute over 2 ms of HBM traffic: activity 1, 700 W for 10 ms = 7 J.
  const StepTimes prefill{0.010, 0.002, 0, 0};
  EXPECT_DOUBLE_EQ(accelerator_activity(h200(), prefill), 1.0);
  EXPECT_DOUBLE_EQ(accelerator_energy_j(h200(), prefill), 7.0);
}

TEST(AcceleratorPower, MemoryBoundDecodeDrawsFarBelowTdp) {
  // Pure HBM streaming: activity 0.35, 80 + 620 x 0.35 = 297 W, inside the
  // 137-300 W measured for H200 decode (arXiv 2605.11999).
  const StepTimes decode{0, 0.010, 0, 0};
  EXPECT_DOUBLE_EQ(accelerator_activity(h200(), decode), 0.35);
  EXPECT_NEAR(accelerator_energy_j(h200(), decode) / 0.010, 297.0, 1e-9);
  // Half as much compute as memory time: 0.35 + 0.65 x 0.5 = 0.675 -> 498.5 W.
  EXPECT_NEAR(accelerator_power_w(h200(), accelerator_activity(h200(), {0.005, 0.010, 0, 0})), 498.5, 1e-9);
  // 6 ms HBM + 2 ms communication at 0.35, 2 ms overhead at 0:
  // (6 x 0.35 + 2 x 0.35) / 10 = 0.28 -> 80 + 620 x 0.28 = 253.6 W.
  EXPECT_NEAR(accelerator_power_w(h200(), accelerator_activity(h200(), {0, 0.006, 0.002, 0.002})), 253.6, 1e-9);
}

TEST(SystemPower, HgxH200AtTdpStaysUnderItsNameplate) {
  // DC: GPUs 8 x 700 + CPUs 2 x 350 + DIMMs 300 + NICs 8 x 25 + NVSwitch 400
  // + fans 1500 = 8700 W; wall = 8700 / 0.94 = 9255.3 W < 10.2 kW nameplate.
  const System& s = test::hw_fixtures().systems.get("hgx-h200");
  const SystemPower p = system_power_at_tdp(s);
  EXPECT_DOUBLE_EQ(p.accelerators_w, 5600.0);
  EXPECT_NEAR(p.wall_w, 8700.0 / 0.94, 1e-9);
  EXPECT_NEAR(p.psu_loss_w, 8700.0 / 0.94 - 8700.0, 1e-9);
  EXPECT_DOUBLE_EQ(provisioned_power_w(s), 10200.0);
  EXPECT_DOUBLE_EQ(provisioned_power_w(s, PowerOptions{1.3, 0.5}), 13260.0);
}

TEST(SystemPower, Gb300RackAtTdpMatchesPublishedDraw) {
  // GPUs 72 x 1400 + Grace 36 x 250 + NICs 72 x 35 + 9 switch trays x 400
  // + 3000 = 118,920 W DC; / 0.95 = 125,179 W vs the published ~125 kW.
  const System& s = test::hw_fixtures().systems.get("gb300-nvl72");
  const SystemPower p = system_power_at_tdp(s);
  EXPECT_DOUBLE_EQ(p.switches_w, 3600.0);
  EXPECT_NEAR(p.wall_w, 118920.0 / 0.95, 1e-6);
  EXPECT_NEAR(p.wall_w / s.power.rack_draw_under_load_w, 1.0, 0.01);
}

TEST(SystemPower, EverySystemAtTdpFitsItsNameplate) {
  for (const auto& [name, s] : test::hw_fixtures().systems.entries()) {
    const SystemPower p = system_power_at_tdp(s);
    EXPECT_LE(p.wall_w, s.power.nameplate_w) << name;
    EXPECT_GT(p.wall_w, 0.6 * s.power.nameplate_w) << name << ": overheads look missing";
  }
}

TEST(EnergyMeter, RuntimePowerIsEnergyOverTheWindow) {
  // 1 s window on one HGX H200; all 8 GPUs run one 0.5 s compute-bound step
  // (700 W) and idle the other 0.5 s (80 W): mean 390 W per GPU.
  // Wall: (8 x 390 + CPUs 2 x 350 x 0.5 + 300 + 200 + 400 + 1500) / 0.94
  //     = 5870 / 0.94 = 6244.68 W; x PUE 1.2 = 7493.6 W.
  const System& s = test::hw_fixtures().systems.get("hgx-h200");
  EnergyMeter meter(s, 1, PowerOptions{1.2, 0.5});
  meter.add_step(StepTimes{0.5, 0.1, 0, 0}, 8);
  const SystemPower p = meter.runtime(1.0);
  EXPECT_NEAR(p.accelerators_w, 8 * 390.0, 1e-9);
  EXPECT_NEAR(p.wall_w, 5870.0 / 0.94, 1e-9);
  EXPECT_NEAR(p.facility_w, 5870.0 / 0.94 * 1.2, 1e-9);
  EXPECT_THROW(meter.runtime(0.1), core::Error) << "steps exceed the window";
  // Two systems, nothing run: every GPU idles.
  EnergyMeter idle(s, 2);
  EXPECT_NEAR(idle.runtime(10.0).accelerators_w, 2 * 8 * 80.0, 1e-9);
}

}  // namespace
}  // namespace agentsim::hw
