// Engram placement (issue #16 item 2): V4.1 Flash's tables on host by default, their rows
// priced over each system's host link (PCIe Gen5 vs NVLink-C2C), prefetch overlap, and the
// 2-GPU plans that host placement makes valid.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/sim/serving/catalog_fixtures.hpp"
#include "sim/serving/batch_text.hpp"
#include "sim/serving/engram_exposure.hpp"
#include "sim/serving/replica_plan.hpp"
#include "sim/serving/step_cost.hpp"

namespace agentsim::serving {
namespace {

const wl::ModelSpec& flash() { return test::fixture_catalog().models.get("deepseek-v4.1-flash"); }

// V4.1 Flash's rows per token: 48 rows x (256 B + 8 B scales) = 12,672 B.
constexpr double kRowBytesPerToken = 48.0 * 264.0;

StepCostOptions options(const hw::System& s, const std::string& plan_text, bool on_host,
                        bool prefetch = true) {
  StepCostOptions o;
  o.efficiency = {0.7, 0.8, 0.8};
  wl::ParallelPlan p = wl::parse_parallel_plan(plan_text);
  p.engram_on_host = on_host;
  o.plan = p;
  o.collectives = std::make_shared<const CollectivePricer>(s, p);
  o.engram_prefetch = prefetch;
  return o;
}

const OpCost& engram_row(const StepCost& c) {
  for (const OpCost& o : c.breakdown.ops) {
    if (o.op == "engram") return o;
  }
  throw std::runtime_error("no engram op");
}

TEST(EngramHost, TheCatalogPlacesV41FlashEngramOnHost) {
  EXPECT_TRUE(flash().engram.host_resident);
  EXPECT_EQ(flash().engram.layers, (std::vector<int>{1, 14}));
  EXPECT_EQ(flash().min_devices, 2);
}

// (a) By default the rows cross the host link and no Engram bytes are read from HBM;
// with the tables in HBM, the reverse.
TEST(EngramHost, DefaultPlacementReadsRowsOverTheHostLinkNotHbm) {
  const hw::System& s = test::fixture_catalog().systems.get("hgx-b200");
  const StepBatch b = parse_step_batch("decode=1@100000");
  const StepCost host = step_cost(b, flash(), s, options(s, "tp=8", flash().engram.host_resident));
  EXPECT_GT(host.breakdown.engram_host_transfer_s, 0.0);
  EXPECT_DOUBLE_EQ(host.breakdown.engram_host_bytes, kRowBytesPerToken);
  EXPECT_DOUBLE_EQ(host.host_bytes, kRowBytesPerToken);
  EXPECT_DOUBLE_EQ(engram_row(host).weight_bytes, 0.0);
  EXPECT_DOUBLE_EQ(engram_row(host).host_bytes, kRowBytesPerToken);
  // 2 us PCIe latency + 12,672 B / 64 GB/s = 2.198 us.
  EXPECT_NEAR(host.breakdown.engram_host_transfer_s, 2e-6 + kRowBytesPerToken / 64e9, 1e-15);

  const StepCost hbm = step_cost(b, flash(), s, options(s, "tp=8", false));
  EXPECT_DOUBLE_EQ(hbm.breakdown.engram_host_transfer_s, 0.0);
  EXPECT_DOUBLE_EQ(hbm.breakdown.engram_host_exposed_s, 0.0);
  EXPECT_DOUBLE_EQ(hbm.host_bytes, 0.0);
  EXPECT_DOUBLE_EQ(engram_row(hbm).weight_bytes, kRowBytesPerToken);
  EXPECT_DOUBLE_EQ(engram_row(hbm).host_bytes, 0.0);
}

// (b) The same decode batch over PCIe Gen5 (HGX B200) and NVLink-C2C (GB200 NVL72).
// Per-GPU host bandwidth from the catalogs:
//   hgx-b200:    gpu_link_bandwidth_per_direction 64 GB/s, gpus_per_host_link 1 -> 64 GB/s
//   gb200-nvl72: 450 GB/s per Grace C2C link, gpus_per_host_link 2 (the plan's GPUs 0-7 fill
//                four superchips, both GPUs of each loading) -> 225 GB/s; the Grace DRAM share
//                18.4 TB/s / 8 = 2.3 TB/s is not the limit.
//   ratio 225 / 64 = 3.515625. Latencies (2 us PCIe, 1 us C2C) are added once per step.
TEST(EngramHost, PcieAndC2cDifferByTheirPerGpuHostBandwidth) {
  const StepBatch b = parse_step_batch("decode=256@8192");
  const double bytes =
      256 * kRowBytesPerToken;  // 3,244,032 B per device (each TP rank reads its tokens' rows)
  const hw::System& pcie = test::fixture_catalog().systems.get("hgx-b200");
  const hw::System& c2c = test::fixture_catalog().systems.get("gb200-nvl72");
  const StepCost a = step_cost(b, flash(), pcie, options(pcie, "tp=8", true, false));
  const StepCost g = step_cost(b, flash(), c2c, options(c2c, "tp=8", true, false));
  EXPECT_DOUBLE_EQ(a.breakdown.host_link_bw_Bps, 64e9);
  EXPECT_DOUBLE_EQ(g.breakdown.host_link_bw_Bps, 225e9);
  // Without prefetch the whole transfer is exposed: 2 us + 50.69 us vs 1 us + 14.42 us.
  EXPECT_NEAR(a.breakdown.engram_host_exposed_s, 2e-6 + bytes / 64e9, 1e-12);
  EXPECT_NEAR(g.breakdown.engram_host_exposed_s, 1e-6 + bytes / 225e9, 1e-12);
  EXPECT_NEAR((a.breakdown.engram_host_exposed_s - 2e-6) / (g.breakdown.engram_host_exposed_s - 1e-6),
              225.0 / 64.0, 1e-9);
  EXPECT_DOUBLE_EQ(a.breakdown.causes.host_link_s, a.breakdown.engram_host_exposed_s);
  EXPECT_DOUBLE_EQ(g.breakdown.causes.host_link_s, g.breakdown.engram_host_exposed_s);
}

// (c) The prefetch rule by hand: 100 MB of rows over 64 GB/s with 2 us latency, Engram at
// layers 1 and 14, 50 MB per layer (0.78125 ms each).
TEST(EngramHost, PrefetchHidesTheTransferBehindTheLayersBeforeEachEngramLayer) {
  const std::vector<int> layers = {1, 14};
  const double bytes = 100e6, bw = 64e9, lat = 2e-6;
  // No prefetch: 2 us + 1.5625 ms, all exposed.
  EXPECT_NEAR(engram_host_exposed_s(bytes, bw, lat, layers, 1e-3, false), 1.5645e-3, 1e-12);
  // 1 ms per layer: layer 1's rows arrive at 0.78325 ms < 1 ms, layer 14's at 1.5645 ms < 14 ms.
  EXPECT_NEAR(engram_host_exposed_s(bytes, bw, lat, layers, 1e-3, true), 0.0, 1e-15);
  // 0.1 ms per layer: layer 1 stalls 0.78325 - 0.1 = 0.68325 ms; layer 14 is needed at
  // 1.4 + 0.68325 = 2.08325 ms > 1.5645 ms: no second stall.
  EXPECT_NEAR(engram_host_exposed_s(bytes, bw, lat, layers, 1e-4, true), 0.68325e-3, 1e-12);
  // 0.05 ms per layer: stalls 0.78325 - 0.05 = 0.73325 ms, then 1.5645 - (0.7 + 0.73325) = 0.13125 ms.
  EXPECT_NEAR(engram_host_exposed_s(bytes, bw, lat, layers, 5e-5, true), 0.8645e-3, 1e-12);
  // Never more than the transfer itself.
  EXPECT_LE(engram_host_exposed_s(bytes, bw, lat, layers, 0.0, true), 1.5645e-3 + 1e-15);
}

// (c) In a priced step: a 16k-token prefill's rows (207.6 MB, 3.24 ms over PCIe) outrun the
// first encoder layer, so part stays exposed; the exposure follows the rule above with the
// step's own per-layer op time.
TEST(EngramHost, PrefetchInAStepFollowsTheRuleWithTheStepsLayerTime) {
  const hw::System& s = test::fixture_catalog().systems.get("hgx-b200");
  const StepBatch b = parse_step_batch("prefill=1x16384@0");
  const StepCost on = step_cost(b, flash(), s, options(s, "tp=8", true, true));
  const StepCost off = step_cost(b, flash(), s, options(s, "tp=8", true, false));
  const double bytes = 16384 * kRowBytesPerToken;
  EXPECT_NEAR(off.breakdown.engram_host_exposed_s, 2e-6 + bytes / 64e9, 1e-12);
  double layer_ops_s = 0;
  for (const OpCost& o : on.breakdown.ops) {
    if (o.layers > 0 && o.op != "host_kv_load") layer_ops_s += o.time_s;
  }
  // Prompt tokens run V4.1's 20 encoder layers (phase_asymmetric.prefill_layers).
  const double layer_s = layer_ops_s / 20;
  const double arrive1 = 2e-6 + bytes / 2 / 64e9, arrive2 = 2e-6 + bytes / 64e9;
  const double stall1 = std::max(0.0, arrive1 - 1 * layer_s);
  const double stall2 = std::max(0.0, arrive2 - (14 * layer_s + stall1));
  EXPECT_NEAR(on.breakdown.engram_host_exposed_s, stall1 + stall2, 1e-9);
  EXPECT_GT(on.breakdown.engram_host_exposed_s, 0.0);
  EXPECT_LT(on.breakdown.engram_host_exposed_s, off.breakdown.engram_host_exposed_s);
  EXPECT_NEAR(off.total_s - on.total_s,
              off.breakdown.engram_host_exposed_s - on.breakdown.engram_host_exposed_s, 1e-12);
}

// (d) tp=2 fits B200/B300-class GPUs only with the 202.8 GB of tables (with scales) on host.
TEST(EngramHost, TwoGpuPlansAreValidWithEngramOnHost) {
  for (const std::string sys : {"hgx-b200", "hgx-b300", "gb200-nvl72", "gb300-nvl72"}) {
    wl::ParallelPlan p = wl::parse_parallel_plan("tp=2");
    p.engram_on_host = true;
    const PlanCheck c = check_plan(flash(), test::fixture_catalog().systems.get(sys), p);
    EXPECT_TRUE(c.ok) << sys << ": " << c.reason;
  }
  wl::ParallelPlan hbm = wl::parse_parallel_plan("tp=2");
  hbm.engram_on_host = false;
  const PlanCheck c = check_plan(flash(), test::fixture_catalog().systems.get("hgx-b200"), hbm);
  EXPECT_FALSE(c.ok);
  // 202.8 GB / 2 = 101.4 GB of tables per device on top of ~149.6 GB of weights > 180 GB x 0.9.
  EXPECT_NE(c.reason.find("incl. Engram tables 101.4 GB in HBM"), std::string::npos) << c.reason;
  EXPECT_NE(c.reason.find("exceed 180.0 GB HBM x 0.90"), std::string::npos) << c.reason;
}

TEST(EngramHost, PlansBelowMinGpusAreRejectedAndTheChosenPlanUsesTwo) {
  wl::ParallelPlan one;
  one.engram_on_host = true;
  const PlanCheck c = check_plan(flash(), test::fixture_catalog().systems.get("hgx-b300"), one);
  EXPECT_FALSE(c.ok);
  EXPECT_NE(c.reason.find("below the model's min_gpus of 2"), std::string::npos) << c.reason;
  const wl::ParallelPlan chosen = choose_plan(flash(), test::fixture_catalog().systems.get("hgx-b200"));
  EXPECT_EQ(chosen.devices(), 2);
  EXPECT_TRUE(chosen.engram_on_host);
}

}  // namespace
}  // namespace agentsim::serving
