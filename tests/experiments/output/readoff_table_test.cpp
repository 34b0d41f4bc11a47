// Read-offs, SLO bracketing and the deployment choice on hand-made runs, and the
// capacity sizing of a known operating point.
// Project headers before gtest: <signal.h> (via gtest) defines a si_value macro.
#include "calibration/error_bands.hpp"
#include "experiments/run/capacity_plan.hpp"
#include "experiments/output/readoff_table.hpp"
#include "experiments/run/run_codec.hpp"

#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <memory>


namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

// Two hgx-h200 plans (tp=4, tp=8) from a real decode, with runs supplied by hand.
class HandMade : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_readoff_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  Experiment e;
  void SetUp() override {
    fs::create_directories(dir);
    std::ofstream(dir / "e.yaml") << "name: t\nmodel: llama-3.1-70b\nsystem: hgx-h200\nsearch: {tp: [4, 8]}\n"
                                     "slo: {tiers: [60], ttft: \"2s\"}\nreadoffs: {agent_speeds: [100]}\n"
                                     "workload:\n  trace: " + kRoot +
                                         "/workloads/traces/claude-code-sample/requests.csv\n"
                                         "  concurrency: [1, 2, 4, 8]\n  warmup: \"1s\"\n  window: \"10s\"\n";
    e = load_experiment((dir / "e.yaml").string(), kRoot);
  }
  void TearDown() override { fs::remove_all(dir); }

  // A run of `plan` at `c` agents: p50 speed, p10 speed, TTFT p90, total tok/s, power.
  RunResult run(int plan, double c, double p50, double p10, double ttft, double total, double power_w,
                bool bisection = false) {
    RunResult r;
    r.id = plan_prefix(e, plan) + std::to_string(static_cast<int>(c));
    r.level = c;
    r.concurrency = static_cast<int>(c);
    r.bisection = bisection;
    r.summary.requests = 10;
    r.summary.agent_output_tok_s_p50 = p50;
    r.summary.agent_output_tok_s_p10 = p10;
    r.summary.ttft_s_p90 = ttft;
    r.summary.total_tok_s = total;
    r.summary.output_tok_s = total / 10;
    r.power.power_w = power_w;
    return r;
  }
};

TEST_F(HandMade, SpeedReadoffInterpolatesPerMw) {
  // Plan 1 (tp=8) at 1 MW: c=4 speed 150 total 1000; c=8 speed 50 total 3000.
  // 100 tok/s: f = (100-150)/(50-150) = 0.5 -> total/MW = 1000 + 0.5 x 2000 = 2000,
  // output/MW = 200, agents/MW = 4 + 0.5 x 4 = 6, concurrency 6.
  const std::vector<RunResult> runs = {run(1, 8, 50, 40, 1, 3000, 1e6), run(1, 4, 150, 120, 1, 1000, 1e6)};
  const ReadoffRow r = speed_readoff(e, 1, runs, 100);
  EXPECT_TRUE(r.in_swept_range);
  EXPECT_DOUBLE_EQ(r.total_tok_s_per_mw, 2000);
  EXPECT_DOUBLE_EQ(r.output_tok_s_per_mw, 200);
  EXPECT_DOUBLE_EQ(r.agents_per_mw, 6);
  EXPECT_DOUBLE_EQ(r.concurrency, 6);
  EXPECT_EQ(r.deployment, "1x(tp=8) on 8 GPUs");
  // 200 tok/s is faster than the slowest-loaded point: flagged, never extrapolated.
  const ReadoffRow out = speed_readoff(e, 1, runs, 200);
  EXPECT_FALSE(out.in_swept_range);
  EXPECT_TRUE(std::isnan(out.total_tok_s_per_mw));
}

TEST_F(HandMade, SloBracketAndBisectionAnswer) {
  const SloTier tier = e.slo_tiers[0];  // p10 >= 60 tok/s, TTFT p90 <= 2 s
  // p10 speeds 100, 80, 50, 20 at 1, 2, 4, 8 agents: meets at 1 and 2, first fails at 4.
  std::vector<RunResult> runs = {run(1, 1, 120, 100, 0.5, 100, 2e5), run(1, 2, 100, 80, 0.5, 200, 2.5e5),
                                 run(1, 4, 70, 50, 0.5, 400, 4e5), run(1, 8, 30, 20, 0.5, 800, 5e5)};
  std::vector<const RunResult*> sweep;
  sweep.reserve(runs.size());
  for (const auto& r : runs) sweep.push_back(&r);
  const SloBracket b = slo_bracket(sweep, tier);
  ASSERT_TRUE(b.bracketed);
  EXPECT_EQ(b.lo, 2);
  EXPECT_EQ(b.hi, 4);
  // The bisection probed 3 agents: p10 65 meets, so the answer is 3 agents at 3e5 W:
  // agents/MW = 3 / 0.3 = 10, total/MW = 300 / 0.3 = 1000.
  runs.push_back(run(1, 3, 80, 65, 1.5, 300, 3e5, true));
  const ReadoffRow r = slo_readoff(e, 1, runs, tier);
  EXPECT_TRUE(r.in_swept_range);
  EXPECT_DOUBLE_EQ(r.concurrency, 3);
  EXPECT_DOUBLE_EQ(r.agents_per_mw, 10);
  EXPECT_DOUBLE_EQ(r.total_tok_s_per_mw, 1000);
  // A TTFT over the limit fails the tier even at full speed.
  EXPECT_FALSE(meets_slo(run(1, 3, 80, 65, 2.5, 300, 3e5), tier));
  // All swept points failing: not in range, no figure.
  std::vector<RunResult> slow = {run(1, 1, 50, 40, 0.5, 100, 2e5), run(1, 2, 40, 30, 0.5, 200, 2e5)};
  const ReadoffRow none = slo_readoff(e, 1, slow, tier);
  EXPECT_FALSE(none.in_swept_range);
  EXPECT_TRUE(std::isnan(none.agents_per_mw));
  EXPECT_NE(none.note.find("smallest swept concurrency (1 agents)"), std::string::npos) << none.note;
}

// The narrowing margin is a log ratio (TTFT explodes past saturation), the smaller of speed and
// TTFT, with the sign of meets_slo; and the read-off's note names the final bracket.
TEST_F(HandMade, SloMarginIsALogRatioWithTheSignOfMeetsSlo) {
  const SloTier& tier = e.slo_tiers.front();  // 60 tok/s at p10, p90 TTFT <= 2 s
  EXPECT_NEAR(slo_margin(run(1, 3, 80, 65, 1.5, 300, 3e5), tier), std::log(65.0 / 60.0), 1e-12);
  EXPECT_NEAR(slo_margin(run(1, 3, 80, 65, 1.9, 300, 3e5), tier), std::log(2.0 / 1.9), 1e-12);
  EXPECT_NEAR(slo_margin(run(1, 3, 80, 65, 150, 300, 3e5), tier), std::log(2.0 / 150), 1e-12);
  EXPECT_DOUBLE_EQ(slo_margin(run(1, 3, 80, 0, 1, 300, 3e5), tier), -20) << "zero speed: a finite end";
  for (double p10 : {0.0, 30.0, 59.9, 60.0, 60.1, 200.0}) {
    for (double ttft : {0.0, 1.0, 2.0, 2.01, 500.0}) {
      const RunResult r = run(1, 3, 80, p10, ttft, 300, 3e5);
      EXPECT_EQ(slo_margin(r, tier) >= 0, meets_slo(r, tier)) << p10 << " tok/s, " << ttft << " s";
    }
  }
  // Swept 2 (meets) and 4 (fails), a probe at 3: when it meets, the final bracket is the swept one's
  // upper end; when it fails, the note names it.
  std::vector<RunResult> runs = {run(1, 1, 90, 75, 0.5, 100, 2e5), run(1, 2, 80, 70, 1.0, 200, 2e5),
                                 run(1, 4, 70, 55, 1.2, 400, 4e5)};
  runs.push_back(run(1, 3, 80, 65, 1.5, 300, 3e5, true));
  EXPECT_EQ(slo_readoff(e, 1, runs, tier).note, "bisection between 2 and 4 agents");
  runs.back() = run(1, 3, 80, 55, 1.5, 300, 3e5, true);  // the probe fails: met at 2, not at 3
  EXPECT_EQ(slo_readoff(e, 1, runs, tier).note, "met at 2 agents, not at 3 (bisection between 2 and 4 agents)");
}

TEST_F(HandMade, DeploymentSearchPicksTheBestPlan) {
  // tp=4 reads 100 tok/s at 1500 total/MW, tp=8 at 2000 (as above): the search keeps tp=8.
  const std::vector<RunResult> runs = {
      run(0, 4, 150, 120, 1, 1000, 1e6), run(0, 8, 50, 40, 1, 2000, 1e6),  // tp=4: 1000 + 0.5 x 1000
      run(1, 4, 150, 120, 1, 1000, 1e6), run(1, 8, 50, 40, 1, 3000, 1e6)};
  const auto all = all_readoffs(e, runs);
  ASSERT_EQ(all.size(), 6u);  // 2 plans x (1 speed + 1 tier + single agent)
  EXPECT_DOUBLE_EQ(all[0].total_tok_s_per_mw, 1500);
  EXPECT_EQ(all[2].target_kind, "single_agent");
  EXPECT_FALSE(all[2].in_swept_range) << "no concurrency-1 run";
  const auto chosen = choose_plans(e, all);
  ASSERT_EQ(chosen.size(), 3u);
  EXPECT_EQ(chosen[0].deployment, "1x(tp=8) on 8 GPUs");
  EXPECT_DOUBLE_EQ(chosen[0].total_tok_s_per_mw, 2000);
  EXPECT_EQ(chosen[0].runner_up, "2x(tp=4) on 8 GPUs") << "the second-best in-range plan is named";
}

// An SLO tier still met at a plan's largest swept concurrency is a floor on its agents per MW: it wins
// over an in-range figure it already exceeds, and loses to one above it.
TEST_F(HandMade, AnSloFloorAboveTheInRangeFigureWins) {
  const auto runs_at = [&](double plan1_power_w) {
    return std::vector<RunResult>{
        // tp=4 meets p10 >= 60 tok/s at every swept level: at least 8 agents on 1 MW.
        run(0, 1, 120, 100, 1, 100, 1e6), run(0, 2, 110, 90, 1, 200, 1e6), run(0, 4, 100, 80, 1, 400, 1e6),
        run(0, 8, 90, 70, 1, 800, 1e6),
        // tp=8 meets at 2 agents and fails at 4: 2 agents over plan1_power_w.
        run(1, 1, 120, 100, 1, 100, plan1_power_w), run(1, 2, 100, 80, 1, 200, plan1_power_w),
        run(1, 4, 70, 50, 1, 400, plan1_power_w), run(1, 8, 30, 20, 1, 800, plan1_power_w)};
  };
  const std::vector<RunResult> floor_wins = runs_at(1e6);  // tp=8: 2 agents per MW, below the floor of 8
  const auto chosen = choose_plans(e, all_readoffs(e, floor_wins));
  ASSERT_EQ(chosen.size(), 3u);
  ASSERT_EQ(chosen[1].target_kind, "slo");
  EXPECT_EQ(chosen[1].deployment, "2x(tp=4) on 8 GPUs");
  EXPECT_TRUE(chosen[1].lower_bound);
  EXPECT_FALSE(chosen[1].in_swept_range);
  EXPECT_DOUBLE_EQ(chosen[1].agents_per_mw, 8);
  EXPECT_NE(chosen[1].note.find("at least"), std::string::npos) << chosen[1].note;
  EXPECT_EQ(chosen[1].runner_up, "1x(tp=8) on 8 GPUs");
  const std::vector<RunResult> range_wins = runs_at(1e5);  // tp=8: 20 agents per MW, above the floor
  const auto again = choose_plans(e, all_readoffs(e, range_wins));
  EXPECT_EQ(again[1].deployment, "1x(tp=8) on 8 GPUs");
  EXPECT_TRUE(again[1].in_swept_range);
  EXPECT_DOUBLE_EQ(again[1].agents_per_mw, 20);
}

// The auto ladder's top run (max_concurrency) has no run after it: there one run 5% below the
// peak has passed it. Below the top, or with a fixed list of levels, one such run is noise.
TEST_F(HandMade, TheLaddersTopRunBelowThePeakHasPassedIt) {
  const std::vector<RunResult> runs = {run(0, 1, 300, 290, 1, 1000, 1e6), run(0, 2, 250, 240, 1, 3000, 1e6),
                                       run(0, 4, 200, 190, 1, 2900, 1e6), run(0, 8, 150, 140, 1, 2800, 1e6)};
  EXPECT_FALSE(speed_readoff(e, 0, runs, 100).in_swept_range);  // a fixed list of levels
  e.workload.auto_concurrency = true;
  e.workload.max_concurrency = 16;
  EXPECT_FALSE(speed_readoff(e, 0, runs, 100).in_swept_range);  // the ladder could go on
  e.workload.max_concurrency = 8;
  const ReadoffRow top = speed_readoff(e, 0, runs, 100);
  EXPECT_TRUE(top.in_swept_range) << top.note;
  EXPECT_DOUBLE_EQ(top.total_tok_s_per_mw, 3000);
  EXPECT_DOUBLE_EQ(top.concurrency, 2);
  // Within 5% of the peak it has not passed it.
  const std::vector<RunResult> level = {run(0, 1, 300, 290, 1, 1000, 1e6), run(0, 2, 250, 240, 1, 3000, 1e6),
                                        run(0, 4, 200, 190, 1, 2900, 1e6), run(0, 8, 150, 140, 1, 2900, 1e6)};
  EXPECT_FALSE(speed_readoff(e, 0, level, 100).in_swept_range);
}

// Every run at or above 100 tok/s per agent, and throughput peaking at 2 agents (3000 tok/s on 1 MW)
// with the last two runs 5% below it: the read-off is the peak, in range. Otherwise out of range.
TEST_F(HandMade, SpeedNeverReachedBeforeThePeakReadsOffThePeak) {
  const std::vector<RunResult> peaked = {run(0, 1, 300, 290, 1, 1000, 1e6), run(0, 2, 250, 240, 1, 3000, 1e6),
                                         run(0, 4, 200, 190, 1, 2000, 1e6), run(0, 8, 150, 140, 1, 2800, 1e6)};
  const ReadoffRow at = speed_readoff(e, 0, peaked, 100);
  EXPECT_TRUE(at.in_swept_range) << at.note;
  EXPECT_DOUBLE_EQ(at.total_tok_s_per_mw, 3000);
  EXPECT_DOUBLE_EQ(at.concurrency, 2);
  EXPECT_NE(at.note.find("throughput peaks at 2 agents"), std::string::npos) << at.note;
  // One run below the peak is noise, not a passed peak.
  const std::vector<RunResult> rising = {run(0, 1, 300, 290, 1, 1000, 1e6), run(0, 2, 250, 240, 1, 3000, 1e6),
                                         run(0, 4, 200, 190, 1, 2000, 1e6), run(0, 8, 150, 140, 1, 3100, 1e6)};
  const ReadoffRow more = speed_readoff(e, 0, rising, 100);
  EXPECT_FALSE(more.in_swept_range);
  EXPECT_TRUE(std::isnan(more.total_tok_s_per_mw));
  // One run 5% below is noise, but throughput collapsing below half the peak (queueing past the
  // KV cache's capacity) has passed it: read off at the peak just before, 3000 at 4 agents.
  const std::vector<RunResult> collapsed = {run(0, 1, 300, 290, 1, 1000, 1e6), run(0, 2, 250, 240, 1, 2000, 1e6),
                                            run(0, 4, 200, 190, 1, 3000, 1e6), run(0, 8, 150, 140, 1, 2900, 1e6),
                                            run(0, 16, 120, 110, 1, 1400, 1e6)};
  const ReadoffRow cliff = speed_readoff(e, 0, collapsed, 100);
  EXPECT_TRUE(cliff.in_swept_range) << cliff.note;
  EXPECT_DOUBLE_EQ(cliff.total_tok_s_per_mw, 3000);
  EXPECT_DOUBLE_EQ(cliff.concurrency, 4);
  std::vector<RunResult> dip = collapsed;
  dip.back() = run(0, 16, 120, 110, 1, 2800, 1e6);  // 93% of the peak, after a run at 97%: noise
  EXPECT_FALSE(speed_readoff(e, 0, dip, 100).in_swept_range);
}

TEST_F(HandMade, CapacitySizingOfAKnownOperatingPoint) {
  // tp=8 replica meets the SLO with 50 agents; 1000 agents -> 20 replicas, one per
  // 8-GPU node -> 20 systems, 160 GPUs; racks of 41 kW hold floor(41 / 10.2) = 4 nodes -> 5 racks.
  RunResult at = run(1, 50, 120, 100, 1, 5000, 8e3);
  at.power.accelerators = 8;
  at.power.accelerators_total = 8;
  at.power.accelerators_w = 8 * 500.0;  // every GPU at 500 W
  CapacityQuestion q;
  q.agents = 1000;
  e.error_bands = nullptr;  // the shipped bands are tested below with hand-made ones
  const CapacityAnswer a = size_plan(e, 1, at, q);
  EXPECT_EQ(a.agents_per_replica, 50);
  EXPECT_EQ(a.replicas, 20);
  EXPECT_EQ(a.systems, 20);
  EXPECT_EQ(a.accelerators, 160);
  EXPECT_EQ(a.racks, 5);
  EXPECT_DOUBLE_EQ(a.provisioned_mw, 20 * 10.2e3 * 1e-6);
  EXPECT_DOUBLE_EQ(a.runtime_mw, 20 * hw::system_power(e.systems[0], 500.0, e.power).facility_w * 1e-6);
  EXPECT_EQ(a.systems_lo, 0) << "no error bands loaded: no band";
  // With a band of CV errors -20%..+25% in the run's regime, 50 agents per replica may be 40 (25
  // systems) or 62.5 (16 systems).
  auto bands = std::make_shared<calib::ErrorBands>();
  const std::string regime = calib::regime_name(calib::accelerator_generation(e.systems[0].accelerator), 0);
  bands->by_regime[regime]["output_tok_s_per_gpu"] = {-0.2, 0.25, 9};
  e.error_bands = bands;
  const CapacityAnswer banded = size_plan(e, 1, at, q);
  EXPECT_EQ(banded.systems, 20);
  EXPECT_EQ(banded.systems_lo, 16);
  EXPECT_EQ(banded.systems_hi, 25);
  EXPECT_EQ(banded.band_regime, regime + " (9 rows)");
  EXPECT_EQ(band_note(banded), "band: " + regime + " (9 rows)") << "the point inside its band: no side named";
  // Every row of the regime under-predicted (errors -40%..-10%): the measured runs were faster,
  // so fewer systems than the point at both ends (50 agents per replica may be 55.6 or 83.3).
  bands->by_regime[regime]["output_tok_s_per_gpu"] = {-0.4, -0.1, 9};
  const CapacityAnswer faster = size_plan(e, 1, at, q);
  EXPECT_EQ(faster.systems_lo, 12);
  EXPECT_EQ(faster.systems_hi, 18);
  EXPECT_EQ(band_note(faster), "band: " + regime +
                                   " (9 rows) (below the point: the regime's measured runs were faster than predicted)");
  bands->by_regime[regime]["output_tok_s_per_gpu"] = {0.1, 0.3, 9};
  const CapacityAnswer slower = size_plan(e, 1, at, q);
  EXPECT_GT(slower.systems_lo, slower.systems);
  EXPECT_EQ(band_note(slower), "band: " + regime +
                                   " (9 rows) (above the point: the regime's measured runs were slower than predicted)");
  EXPECT_EQ(band_note(a), "") << "no band, no note";
  // The doubling + bisection answer is the largest meeting run.
  const SloTier tier{60, 10, 2.0, 90};
  EXPECT_EQ(best_meeting_concurrency({run(1, 32, 100, 90, 1, 1, 1e3), run(1, 64, 50, 40, 1, 1, 1e3),
                                      run(1, 48, 80, 61, 1, 1, 1e3), run(1, 56, 70, 55, 1, 1, 1e3)},
                                     tier),
            48);
}

TEST_F(HandMade, RunCodecRoundTrips) {
  RunResult r = run(1, 8, 50, 40, 1, 3000, 1e6, true);
  r.skipped = "";
  r.system = "hgx-h200";
  r.deployment = "tp=8";
  r.seed = 12345;
  r.requests.push_back({3, 1000, 900, 50, 1.5, 2.0, 3.0, false});
  metrics::StepRecord st;
  st.start_s = 1.0;
  st.end_s = 1.02;
  st.decode_tokens = 8;
  st.prefill_tokens = 256;
  st.sampled_tokens = 8;
  st.batch_sequences = 9;
  st.compute_s = 0.01;
  st.memory_s = 0.015;
  st.comm_s = 0.003;
  st.overhead_s = 0.002;
  r.steps.push_back(st);
  const auto back = decode_runs(encode_runs({r, run(0, 1, 1, 1, 1, 1, 1)}));
  ASSERT_EQ(back.size(), 2u);
  EXPECT_EQ(encode_runs(back), encode_runs({r, run(0, 1, 1, 1, 1, 1, 1)}));
  EXPECT_EQ(back[0].id, r.id);
  EXPECT_EQ(back[0].steps.size(), 1u);
  EXPECT_DOUBLE_EQ(back[0].steps[0].memory_s, 0.015);
  EXPECT_THROW(decode_runs(encode_runs({r}).substr(0, 40)), core::Error);
}

}  // namespace
}  // namespace agentsim::exp
