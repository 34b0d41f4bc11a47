// `deployment.speculative: auto | off | {draft, acceptance}` and the catalog's `speculative`
// drafters: auto runs the model's drafter (none for models that ship none), off runs none,
// a map gives one; bad values name the key; a speculating sweep's outputs do not depend on -j.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <filesystem>
#include <fstream>

#include "experiments/config/experiment.hpp"
#include "experiments/run/resolve_run.hpp"
#include "sim/core/error.hpp"
#include "workloads/model/param_counts.hpp"
#include "tests/support/cli_runner.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

class SpeculativeConfig : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("agentsim_spec_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                              "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  // An experiment of `model` whose deployment section ends with `spec` (lines 4-6 + spec).
  std::string write(const std::string& model, const std::string& spec) {
    const fs::path p = dir / "e.yaml";
    std::ofstream(p) << "name: t\n"
                        "model: " + model + "\n"
                        "system: hgx-h200\n"
                        "deployment:\n"
                        "  tp: 8\n" + spec +
                        "workload:\n"
                        "  generator: {turns: {median: 2, p90: 3}}\n"
                        "  sessions: 4\n"
                        "  concurrency: [1, 2, 4]\n"
                        "  warmup: 1s\n"
                        "  window: 10s\n";
    return p.string();
  }
  serving::SpecDecodeOptions resolved(const std::string& model, const std::string& spec) {
    const Experiment e = load_experiment(write(model, spec), kRoot);
    return resolve_run(e, first_valid_plan(e)).replica.cost.spec;
  }
  std::string error_of(const std::string& model, const std::string& spec) {
    const std::string path = write(model, spec);
    try {
      load_experiment(path, kRoot);
    } catch (const core::Error& e) {
      std::string msg = e.what();
      const std::string prefix = path + ":";
      if (msg.rfind(prefix, 0) == 0) msg = "FILE:" + msg.substr(prefix.size());
      return msg;
    }
    return "no error";
  }
};

TEST_F(SpeculativeConfig, CatalogDraftersDecode) {
  const Experiment e = load_experiment(write("deepseek-r1", ""), kRoot);
  const wl::SpeculativeSpec& s = e.model.speculative;
  EXPECT_EQ(s.method, "mtp");
  EXPECT_EQ(s.draft_tokens, 3);
  ASSERT_EQ(s.acceptance.size(), 3u);
  // TensorRT-LLM's measured acceptance lengths 1.92, 2.58, 2.82 for draft 1, 2, 3.
  EXPECT_NEAR(1 + s.acceptance[0], 1.92, 0.005);
  EXPECT_NEAR(1 + s.acceptance[0] + s.acceptance[0] * s.acceptance[1], 2.58, 0.005);
  EXPECT_NEAR(1 + s.acceptance[0] * (1 + s.acceptance[1] * (1 + s.acceptance[2])), 2.82, 0.005);
}

TEST_F(SpeculativeConfig, AutoRunsTheModelsDrafterOffRunsNone) {
  const serving::SpecDecodeOptions r1 = resolved("deepseek-r1", "");  // default: auto
  EXPECT_EQ(r1.draft_tokens, 3);
  EXPECT_EQ(r1.acceptance, (std::vector<double>{0.92, 0.717, 0.364}));
  EXPECT_EQ(resolved("deepseek-r1", "  speculative: auto\n").draft_tokens, 3);
  EXPECT_FALSE(resolved("deepseek-r1", "  speculative: off\n").enabled());
  EXPECT_FALSE(resolved("llama-3.1-70b", "  speculative: auto\n").enabled()) << "no drafter shipped";
  const serving::SpecDecodeOptions x = resolved("llama-3.1-70b", "  speculative: {draft: 2, acceptance: [0.8, 0.6]}\n");
  EXPECT_EQ(x.draft_tokens, 2);
  EXPECT_EQ(x.acceptance, (std::vector<double>{0.8, 0.6}));
  EXPECT_DOUBLE_EQ(x.draft_layers, 1.0);
  EXPECT_EQ(resolved("llama-3.1-70b", "  speculative: {acceptance: [0.5], draft_layers: 0.5}\n").draft_tokens, 1);
  // The deprecated alias still works; [] is off.
  EXPECT_EQ(resolved("llama-3.1-70b", "  spec_acceptance: [0.7, 0.5]\n").draft_tokens, 2);
  EXPECT_FALSE(resolved("deepseek-r1", "  spec_acceptance: []\n").enabled());
}

// A running MTP drafter's weights take HBM from the KV cache: R1's 11.6B-parameter module at
// the model's mean bytes per parameter, over the 8 devices of its stage.
TEST_F(SpeculativeConfig, RunningDrafterWeightsTakeKvCapacity) {
  const Experiment on = load_experiment(write("deepseek-r1", "  speculative: auto\n"), kRoot);
  const long long kv_on = resolve_run(on, first_valid_plan(on)).replica.kv_capacity_tokens;
  const Experiment off = load_experiment(write("deepseek-r1", "  speculative: off\n"), kRoot);
  const long long kv_off = resolve_run(off, first_valid_plan(off)).replica.kv_capacity_tokens;
  const wl::ParamCounts c = wl::param_counts(on.model);
  const double drafter_per_device = c.mtp * on.model.weight_bytes() / c.total() / 8;
  const double kv_per_token_per_device = static_cast<double>(on.model.kv_bytes_per_token());  // MLA: replicated
  EXPECT_NEAR(static_cast<double>(kv_off - kv_on), drafter_per_device / kv_per_token_per_device, 2.0);
  EXPECT_GT(kv_off - kv_on, 10'000);
}

TEST_F(SpeculativeConfig, BadValuesNameTheKey) {
  EXPECT_EQ(error_of("llama-3.1-70b", "  speculative: {draft: 2, acceptance: [0.8, 1.5]}\n"),
            "FILE:6: deployment.speculative.acceptance[1]: expected a probability in [0, 1]");
  EXPECT_EQ(error_of("llama-3.1-70b", "  speculative:\n    draft: 3\n    acceptance: [0.8, 0.5]\n"),
            "FILE:8: deployment.speculative.acceptance: expected 3 probabilities (one per draft position), found 2");
  EXPECT_EQ(error_of("llama-3.1-70b", "  speculative: {draft: 20, acceptance: [0.5]}\n"),
            "FILE:6: deployment.speculative.draft: expected an integer in [1, 16]");
  EXPECT_EQ(error_of("llama-3.1-70b", "  speculative: sometimes\n"),
            "FILE:6: deployment.speculative: expected auto, off or {draft: K, acceptance: [p1, ...]}, found 'sometimes'");
  EXPECT_NE(error_of("llama-3.1-70b", "  speculative: {acceptance: [0.5], method: mtp}\n").find("method: unknown key"),
            std::string::npos);
  EXPECT_EQ(error_of("llama-3.1-70b", "  speculative: off\n  spec_acceptance: [0.5]\n"),
            "FILE:6: deployment.speculative: give speculative or the deprecated spec_acceptance, not both");
}

// `deployment.draft_schedule` reaches the run's drafter, auto or given (drafts above the
// drafter's own k run k); bad schedules name the key.
TEST_F(SpeculativeConfig, DraftScheduleReachesTheDrafter) {
  const serving::SpecDecodeOptions r1 = resolved("deepseek-r1", "  draft_schedule: {64: 1, 256: 0}\n");
  EXPECT_EQ(r1.draft_tokens, 3);
  EXPECT_EQ(r1.schedule, (std::vector<std::pair<int, int>>{{64, 1}, {256, 0}}));
  EXPECT_EQ(r1.drafts_for(63), 3);
  EXPECT_EQ(r1.drafts_for(64), 1);
  EXPECT_EQ(r1.drafts_for(300), 0);
  const serving::SpecDecodeOptions x =
      resolved("llama-3.1-70b", "  speculative: {acceptance: [0.8]}\n  draft_schedule: {8: 3, 16: 0}\n");
  EXPECT_EQ(x.schedule, (std::vector<std::pair<int, int>>{{8, 1}, {16, 0}}));
  EXPECT_FALSE(resolved("deepseek-r1", "  speculative: off\n  draft_schedule: {8: 1}\n").enabled());
  EXPECT_EQ(error_of("deepseek-r1", "  draft_schedule: {64: 1, 32: 0}\n"),
            "FILE:6: deployment.draft_schedule: key '32': the thresholds must ascend (64 before it)");
  EXPECT_EQ(error_of("deepseek-r1", "  draft_schedule: {many: 0}\n"),
            "FILE:6: deployment.draft_schedule: key 'many': expected a number of running sequences in 1..1000000");
  EXPECT_EQ(error_of("deepseek-r1", "  draft_schedule: [64, 0]\n"),
            "FILE:6: deployment.draft_schedule: expected a map {running sequences at or above: drafts, ...}");
  EXPECT_NE(error_of("deepseek-r1", "  draft_schedule: {64: -1}\n").find("deployment.draft_schedule.64"),
            std::string::npos);
}

// explain runs the model's drafter by default and shows tokens per step with the verify and
// draft times; --spec off and a given list override it.
TEST(SpeculativeExplain, ShowsTokensPerStepAndTheVerifyAndDraftCosts) {
  const std::string base = "explain --model deepseek-r1 --system hgx-h200 --plan tp=8 --batch decode=8@4096";
  const auto on = test_support::run(base);
  ASSERT_EQ(on.code, 0) << on.output;
  EXPECT_NE(on.output.find("2.820 tokens/step per decoding sequence"), std::string::npos) << on.output;
  EXPECT_NE(on.output.find("speculative decoding: k=3 drafts (acceptance 0.92,0.717,0.364, the model's drafter): "
                           "verify 4 tokens per decoding sequence"),
            std::string::npos)
      << on.output;
  const auto off = test_support::run(base + " --spec off");
  ASSERT_EQ(off.code, 0) << off.output;
  EXPECT_NE(off.output.find("1.000 tokens/step per decoding sequence"), std::string::npos) << off.output;
  EXPECT_EQ(off.output.find("speculative decoding:"), std::string::npos) << off.output;
  const auto given = test_support::run(base + " --spec 0.5");
  EXPECT_NE(given.output.find("1.500 tokens/step"), std::string::npos) << given.output;
}

// A speculating sweep (three levels) writes the same summary and read-offs at -j1 and -j2.
TEST_F(SpeculativeConfig, SweepOutputsDoNotDependOnThreads) {
  const std::string e = write("llama-3.1-70b", "  speculative: {draft: 3, acceptance: [0.8, 0.6, 0.4]}\n");
  for (const char* j : {"1", "2"}) {
    const auto r = test_support::run("run " + e + " -j " + j + " --no-run-table --out " + (dir / j).string());
    ASSERT_EQ(r.code, 0) << r.output;
  }
  for (const char* f : {"summary.csv", "readoffs.csv"}) {
    const std::string a = test_support::slurp(dir / "1" / f);
    EXPECT_GT(a.size(), 100u) << f;
    EXPECT_TRUE(a == test_support::slurp(dir / "2" / f)) << f << " differs between -j1 and -j2";
  }
}

}  // namespace
}  // namespace agentsim::exp
