// Error bands on a sweep's predictions: each run takes its regime's band (accelerator
// generation, mean decode batch per replica step, the weights' format where it has a band), a read-off the band of the run nearest the
// concurrency it was read at, and a run outside every validated regime says so with empty
// bounds. Bands and runs are hand-made; the expected numbers are computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <sstream>

#include "calibration/error_bands.hpp"
#include "experiments/config/catalog.hpp"
#include "experiments/run/prediction_bands.hpp"
#include "experiments/output/summary_csv.hpp"
#include "experiments/run/sweep_outcome.hpp"
#include "sim/core/csv_reader.hpp"

namespace agentsim::exp {
namespace {

RunResult run(const std::string& system, double level, double batch, double output_tok_s) {
  RunResult r;
  r.system = system;
  r.deployment = "tp=8";
  r.concurrency = static_cast<int>(level);
  r.level = level;
  r.id = system + "/tp=8/" + std::to_string(r.concurrency);
  r.summary.output_tok_s = output_tok_s;
  r.summary.total_tok_s = 2 * output_tok_s;
  r.summary.agent_output_tok_s_p50 = 100;
  r.summary.mean_batch_sequences = batch;
  r.power.power_w = 1e6;  // 1 MW: per-MW figures equal the rates
  return r;
}

TEST(PredictionBands, RunsAndReadoffsTakeTheirRegimesBand) {
  const Catalog cat = load_catalog(AGENTSIM_SOURCE_DIR);
  Experiment e;
  e.systems = {cat.systems.get("hgx-h200"), cat.systems.get("hgx-a100")};
  e.plans.resize(2);
  e.plans[0].system = 0, e.plans[0].label = "tp=8";
  e.plans[1].system = 1, e.plans[1].label = "tp=8";
  auto bands = std::make_shared<calib::ErrorBands>();
  bands->by_regime["nvidia-fp8/latency"]["output_tok_s_per_gpu"] = {-0.2, 0.25, 12};  // lo = x / 1.25, hi = x / 0.8
  bands->by_regime["nvidia-fp8/latency"]["agent_output_tok_s"] = {0.0, 1.0, 12};      // lo = x / 2, hi = x
  bands->by_regime["nvidia-fp8/throughput"]["output_tok_s_per_gpu"] = {0.5, 1.0, 7};
  e.error_bands = bands;

  SweepOutcome o;
  o.runs = {run("hgx-h200", 1, 1, 500), run("hgx-h200", 64, 40, 8000), run("hgx-a100", 1, 1, 300)};
  ReadoffRow single;
  single.system = "hgx-h200", single.plan = 0, single.target_kind = "single_agent";
  single.target_agent_tok_s = 100, single.total_tok_s_per_mw = 1000, single.concurrency = 1;
  ReadoffRow speed = single;
  speed.target_kind = "speed", speed.total_tok_s_per_mw = 9000, speed.concurrency = 50;  // nearest run: 64
  ReadoffRow a100 = single;
  a100.system = "hgx-a100", a100.plan = 1;
  o.readoffs = {single, speed, a100};
  attach_error_bands(e, o);

  EXPECT_EQ(o.runs[0].band.regime, "nvidia-fp8/latency (12 rows)");
  EXPECT_DOUBLE_EQ(o.runs[0].band.throughput_lo, 0.8);
  EXPECT_DOUBLE_EQ(o.runs[0].band.throughput_hi, 1.25);
  EXPECT_DOUBLE_EQ(o.runs[0].band.agent_lo, 0.5);
  EXPECT_EQ(o.runs[1].band.regime, "nvidia-fp8/throughput (7 rows)") << "40 sequences per step > 16";
  EXPECT_TRUE(std::isnan(o.runs[1].band.agent_lo)) << "no agent-speed band in that regime";
  EXPECT_EQ(o.runs[2].band.regime, "nvidia-bf16/latency (not validated)");
  EXPECT_TRUE(std::isnan(o.runs[2].band.throughput_lo));

  EXPECT_DOUBLE_EQ(o.readoffs[0].total_tok_s_per_mw_lo, 800);
  EXPECT_DOUBLE_EQ(o.readoffs[0].total_tok_s_per_mw_hi, 1250);
  EXPECT_DOUBLE_EQ(o.readoffs[0].agent_tok_s_lo, 50);
  EXPECT_DOUBLE_EQ(o.readoffs[0].agent_tok_s_hi, 100);
  EXPECT_EQ(o.readoffs[1].band_regime, "nvidia-fp8/throughput (7 rows)");
  EXPECT_DOUBLE_EQ(o.readoffs[1].total_tok_s_per_mw_lo, 4500);  // 9000 / (1 + 1.0)
  EXPECT_DOUBLE_EQ(o.readoffs[1].total_tok_s_per_mw_hi, 6000);  // 9000 / (1 + 0.5)
  EXPECT_TRUE(std::isnan(o.readoffs[1].agent_tok_s_lo)) << "a speed target's speed is the target";
  EXPECT_EQ(o.readoffs[2].band_regime, "nvidia-bf16/latency (not validated)");
  EXPECT_TRUE(std::isnan(o.readoffs[2].total_tok_s_per_mw_lo));

  // summary.csv carries them; outside every regime the cells are empty.
  std::istringstream in(summary_csv(o.runs));
  core::CsvReader csv(in, "summary.csv");
  const std::size_t regime = csv.column("band_regime"), lo = csv.column("output_tok_s_lo"),
                    hi = csv.column("total_tok_s_per_mw_hi"), agent = csv.column("agent_output_tok_s_p50_lo");
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.field(regime), "nvidia-fp8/latency (12 rows)");
  EXPECT_DOUBLE_EQ(std::stod(csv.field(lo)), 400);   // 500 x 0.8
  EXPECT_DOUBLE_EQ(std::stod(csv.field(hi)), 1250);  // 1000 per MW x 1.25
  EXPECT_DOUBLE_EQ(std::stod(csv.field(agent)), 50);
  ASSERT_TRUE(csv.next());
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.field(lo), "");
}

// A run takes the band of its weights' stored format where validation has one (an MoE model's
// routed experts, "-experts", a dense model's weights, "-weights": different kernels), else its
// generation's; validation files each row under both names.
TEST(PredictionBands, TheWeightFormatsBandWinsWhereItHasRows) {
  const Catalog cat = load_catalog(AGENTSIM_SOURCE_DIR);
  const hw::System& b200 = cat.systems.get("hgx-b200");
  wl::ModelSpec moe;
  moe.ffn.experts = 256;
  moe.precision.weights = hw::DType::kFp8;
  moe.precision.experts = hw::DType::kFp4;
  wl::ModelSpec dense;
  dense.precision.weights = hw::DType::kFp8;
  dense.precision.experts = hw::DType::kFp4;  // no routed experts: not the format that counts
  EXPECT_EQ(band_regimes(moe, b200, 64)[0], "nvidia-fp4/throughput/fp4-experts");
  EXPECT_EQ(band_regimes(moe, b200, 64)[1], "nvidia-fp4/throughput");
  EXPECT_EQ(band_regimes(dense, b200, 2)[0], "nvidia-fp4/latency/fp8-weights");
  dense.precision.weights = hw::DType::kFp4;  // an FP4 dense model is not filed with FP4 experts
  EXPECT_EQ(band_regimes(dense, b200, 64)[0], "nvidia-fp4/throughput/fp4-weights");
  dense.precision.weights = hw::DType::kFp8;

  Experiment e;
  e.systems = {b200};
  auto bands = std::make_shared<calib::ErrorBands>();
  bands->by_regime["nvidia-fp4/throughput"]["output_tok_s_per_gpu"] = {-0.1, 0.5, 60};
  bands->by_regime["nvidia-fp4/throughput/fp4-experts"]["output_tok_s_per_gpu"] = {-0.1, 0.1, 30};
  e.error_bands = bands;
  e.model = moe;
  const PredictionBand narrow = band_for(e, b200, 64);
  EXPECT_EQ(narrow.regime, "nvidia-fp4/throughput/fp4-experts (30 rows)");
  EXPECT_DOUBLE_EQ(narrow.throughput_lo, 1 / 1.1);
  e.model = dense;  // no fp8-weights band on Blackwell at throughput: the generation's
  const PredictionBand wide = band_for(e, b200, 64);
  EXPECT_EQ(wide.regime, "nvidia-fp4/throughput (60 rows)");
  EXPECT_DOUBLE_EQ(wide.throughput_lo, 1 / 1.5);
  EXPECT_EQ(band_for(e, b200, 2).regime, "nvidia-fp4/latency (not validated)");

  // A narrower regime without the agent-speed band the generation's has is not taken: narrowing
  // never drops a bound.
  bands->by_regime["nvidia-fp4/throughput"]["agent_output_tok_s"] = {0.0, 1.0, 60};
  e.model = moe;
  const PredictionBand kept = band_for(e, b200, 64);
  EXPECT_EQ(kept.regime, "nvidia-fp4/throughput (60 rows)");
  EXPECT_DOUBLE_EQ(kept.throughput_lo, 1 / 1.5);
  EXPECT_DOUBLE_EQ(kept.agent_lo, 0.5);
  bands->by_regime["nvidia-fp4/throughput/fp4-experts"]["agent_output_tok_s"] = {0.0, 0.2, 30};
  const PredictionBand both = band_for(e, b200, 64);
  EXPECT_EQ(both.regime, "nvidia-fp4/throughput/fp4-experts (30 rows)");
  EXPECT_DOUBLE_EQ(both.agent_lo, 1 / 1.2);
}

}  // namespace
}  // namespace agentsim::exp
