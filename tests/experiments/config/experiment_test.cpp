#include "experiments/config/experiment.hpp"

#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;
using agentsim::test_support::kTrace;

class ExperimentErrors : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("agentsim_exp_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                              "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  void SetUp() override { fs::create_directories(dir); }
  void TearDown() override { fs::remove_all(dir); }

  std::string write(const std::string& body) {
    const fs::path p = dir / "e.yaml";
    std::ofstream(p) << body;
    return p.string();
  }
  static std::string valid_body() {
    return "name: t\n"
           "model: llama-3.1-70b\n"
           "system: hgx-h200\n"
           "deployment:\n"
           "  tp: 8\n"
           "workload:\n"
           "  trace: " + kTrace + "\n"
           "  concurrency: [1, 2]\n"
           "  warmup: \"1s\"\n"
           "  window: \"10s\"\n";
  }
  std::string error_of(const std::string& body) {
    const std::string path = write(body);
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

// `error_bands` names the bands the headline figures take (a file `validate --cv --bands` wrote,
// relative to the experiment); without it, the shipped ones. A missing file is an error at its key.
TEST_F(ExperimentErrors, ErrorBandsFileIsTheExperiments) {
  const Experiment shipped = load_experiment(write(valid_body()), kRoot);
  ASSERT_NE(shipped.error_bands, nullptr);
  EXPECT_EQ(shipped.error_bands_file, "calibration/data/error_bands.yaml");
  EXPECT_NE(shipped.error_bands->find("nvidia-fp8/throughput", "output_tok_s_per_gpu"), nullptr);

  fs::create_directories(dir / "bands");
  std::ofstream(dir / "bands" / "recent.yaml")
      << "provenance: \"hand-made\"\n"
         "throughput_bound_sequences: 16\n"
         "regimes:\n"
         "  nvidia-fp8/latency:\n"
         "    output_tok_s_per_gpu: {rows: 9, err_p10: -0.05, err_p90: 0.1}\n";
  const Experiment e = load_experiment(write(valid_body() + "error_bands: bands/recent.yaml\n"), kRoot);
  EXPECT_EQ(e.error_bands_file, "bands/recent.yaml");
  ASSERT_NE(e.error_bands, nullptr);
  const calib::Band* b = e.error_bands->find("nvidia-fp8/latency", "output_tok_s_per_gpu");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->rows, 9);
  EXPECT_DOUBLE_EQ(b->err_p90, 0.1);
  EXPECT_EQ(e.error_bands->find("nvidia-fp8/throughput", "output_tok_s_per_gpu"), nullptr) << "only the file's regimes";

  EXPECT_EQ(error_of(valid_body() + "error_bands: bands/none.yaml\n"),
            "FILE:11: error_bands: error-bands file not found: " + (dir / "bands" / "none.yaml").string() +
                " (write one with agentsim validate ... --cv --bands FILE)");
}

TEST_F(ExperimentErrors, ValidExperimentLoads) {
  const Experiment e = load_experiment(write(valid_body()), kRoot);
  EXPECT_EQ(e.plans[0].deployment.plan.tp, 8);
  EXPECT_EQ(e.workload.concurrency, (std::vector<int>{1, 2}));
  EXPECT_DOUBLE_EQ(e.workload.window_s, 10.0);
  EXPECT_EQ(e.model.name, "llama-3.1-70b");
}

TEST_F(ExperimentErrors, UnknownKeySuggestsTheClosest) {
  EXPECT_EQ(error_of(valid_body() + "  windw: \"5s\"\n"),
            "FILE:11: workload.windw: unknown key (did you mean 'window'?); valid keys: trace, format, "
            "concurrency, max_concurrency, concurrency_tolerance, max_probes, warmup, window, start_spread, mode, session_rates, time_scales, random_start, "
            "session_limit, "
            "human_gap_cap, tool_gap_cap, generator, sessions, profile, max_context, truncated_context_fraction, tool_delay");
}

TEST_F(ExperimentErrors, WrongTypeNamesLineAndKey) {
  std::string body = valid_body();
  body.replace(body.find("tp: 8"), 5, "tp: eight");
  EXPECT_EQ(error_of(body), "FILE:5: deployment.tp: expected an integer, found 'eight'");
}

TEST_F(ExperimentErrors, WrongUnit) {
  std::string body = valid_body();
  body.replace(body.find("\"10s\""), 5, "\"10GB\"");
  EXPECT_EQ(error_of(body),
            "FILE:10: workload.window: unit 'GB' in '10GB' is the wrong kind: expected a time such as "
            "\"2us\", \"1.5ms\", \"30s\"");
}

TEST_F(ExperimentErrors, MissingTraceFile) {
  std::string body = valid_body();
  body.replace(body.find(kTrace), kTrace.size(), "nope.csv");
  EXPECT_EQ(error_of(body), "FILE:7: workload.trace: trace file not found: " + (dir / "nope.csv").string());
}

TEST_F(ExperimentErrors, UnknownModelListsValidNames) {
  std::string body = valid_body();
  body.replace(body.find("llama-3.1-70b"), 13, "llama-3.1-70");
  const std::string msg = error_of(body);
  EXPECT_EQ(msg.substr(0, msg.find(';')), "FILE:2: model: unknown model 'llama-3.1-70' (did you mean 'llama-3.1-70b'?)");
}

TEST_F(ExperimentErrors, MissingRequiredKey) {
  std::string body = valid_body();
  body.erase(body.find("  window:"), std::string("  window: \"10s\"\n").size());
  EXPECT_EQ(error_of(body), "FILE:7: workload.window: missing required key");
}

TEST_F(ExperimentErrors, OutOfRangeValues) {
  std::string body = valid_body();
  body.replace(body.find("[1, 2]"), 6, "[1, 0]");
  EXPECT_EQ(error_of(body), "FILE:8: workload.concurrency[1]: expected a concurrency in [1, 10000000]");
  body = valid_body();
  // Degrees reach 16 systems of devices (a replica may span whole systems): 8 x 16 on an 8-GPU node.
  body.replace(body.find("tp: 8"), 5, "tp: 256");
  EXPECT_EQ(error_of(body), "FILE:5: deployment.tp: expected an integer in [1, 128]");
}

TEST_F(ExperimentErrors, YamlSyntaxError) {
  EXPECT_EQ(error_of("name: [unclosed\n"), "FILE:2: YAML syntax error: end of sequence flow not found");
}

TEST_F(ExperimentErrors, MissingFile) {
  try {
    load_experiment((dir / "absent.yaml").string(), kRoot);
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_EQ(std::string(e.what()), (dir / "absent.yaml").string() + ": cannot open file");
  }
}

// parse_experiment decodes text held in memory (the fuzz target's entry point) exactly as
// load_experiment decodes the file; a list used as a key, which yaml-cpp cannot convert to a
// string, is a located error rather than an escaping YAML::BadConversion.
TEST_F(ExperimentErrors, InMemoryTextDecodesLikeTheFileAndNonScalarKeysAreErrors) {
  const std::string path = write(valid_body());
  const Experiment from_file = load_experiment(path, kRoot);
  const Experiment from_text = parse_experiment(valid_body(), path, kRoot);
  EXPECT_EQ(from_text.resolved_yaml, from_file.resolved_yaml);
  EXPECT_EQ(from_text.plans.size(), from_file.plans.size());
  try {
    parse_experiment(valid_body() + "[a, b]: 1\n", path, kRoot);
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where().file, path);
    EXPECT_EQ(e.where().line, 11);  // the key's line: valid_body() has 10 lines
    EXPECT_NE(e.detail().find("unexpected YAML structure"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace agentsim::exp
