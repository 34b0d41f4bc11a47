// agentsim validate: every shipped measured row is predicted and compared.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include "calibration/system_comparison.hpp"
#include "sim/serving/engine_overhead.hpp"
#include "tests/support/cli_runner.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

using agentsim::test_support::run;

TEST(ValidateCli, EveryShippedRowGetsPredictedAndCompared) {
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " + kRoot +
                               "/experiments/validation/measured_runs.csv --json -j 2");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["rows_read"], 11);
  EXPECT_EQ(j["rows_mapped"], 11);
  EXPECT_EQ(j["rows_skipped"], 0);
  std::set<std::string> ids;
  for (const auto& r : j["rows"]) {
    ids.insert(r["id"].get<std::string>());
    ASSERT_FALSE(r["metrics"].empty());
    for (const auto& e : r["metrics"]) {
      const double meas = e["measured"], pred = e["predicted_in_sample"], err = e["error_in_sample_pct"];
      EXPECT_GT(pred, 0.0);
      EXPECT_NEAR(err, (pred - meas) / meas * 100.0, 1e-9);
    }
  }
  EXPECT_EQ(ids.size(), 11u) << "one or more errors for every row of measured_runs.csv";
  ASSERT_FALSE(j["mape"].empty());
  EXPECT_EQ(j["worst"].size(), 5u);
}

// Without --cv nothing is fitted: the text table says its figures are the catalog's and has no
// cross-validated column (it printed "nan%" there before).
TEST(ValidateCli, WithoutCrossValidationTheTableIsTheCatalogs) {
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " + kRoot +
                               "/experiments/validation/measured_runs.csv -j 2");
  ASSERT_EQ(code, 0) << out;
  EXPECT_NE(out.find("(catalog defaults; --cv fits and cross-validates)"), std::string::npos) << out;
  EXPECT_EQ(out.find("MAPE CV"), std::string::npos) << out;
  EXPECT_EQ(out.find("nan"), std::string::npos) << out;
  EXPECT_NE(out.find("output_tok_s_per_gpu"), std::string::npos) << out;
}

// A directory of every schema: rows read, mapped and skipped (with reasons) add up, the fit
// reports one parameter per engine, and every mapped row has an in-sample and a CV prediction.
TEST(ValidateCli, DirectoryWithCrossValidation) {
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " + kRoot +
                               "/tests/calibration/fixtures/measured --cv --json -j 2");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["rows_read"], 10);
  EXPECT_EQ(j["rows_mapped"], 5);
  EXPECT_EQ(j["rows_skipped"], 5);
  EXPECT_EQ(j["unmapped"].size(), 5u);
  for (const auto& s : j["unmapped"]) {
    EXPECT_GT(s["line"].get<int>(), 1);
    EXPECT_FALSE(s["reason"].get<std::string>().empty());
  }
  EXPECT_EQ(j["files"].size(), 4u);
  // Each engine's host time and request latency, the random-prompt acceptance.
  ASSERT_EQ(j["parameters"].size(), 2 * agentsim::serving::kEngineCount + 1);
  int latencies = 0;
  for (const auto& p : j["parameters"]) {
    if (p["rows"].get<int>() == 0 || !p.contains("fitted_s")) continue;
    const bool latency = p["name"].get<std::string>().ends_with(".request_latency");
    latencies += latency;
    EXPECT_GE(p["fitted_s"].get<double>(), 0.0);
    EXPECT_LE(p["fitted_s"].get<double>(), (latency ? 0.5 : 4e-3) + 1e-12) << p;
  }
  EXPECT_GT(latencies, 0);  // the fixture's rows report TTFTs
  // The disaggregated row (serving-points-2 line 3: one prefill and nine decode TP8 replicas of
  // SGLang) is predicted, its host times fitted with the others, but its TTFT (which holds the
  // prefill-to-decode handover) is not fitted to SGLang's request latency: one row fewer there.
  int disaggregated = 0;
  for (const auto& r : j["rows"]) {
    if (r["prefill_replicas"].get<int>() == 0) continue;
    ++disaggregated;
    EXPECT_EQ(r["decode_replicas"].get<int>(), 9);
    EXPECT_EQ(r["gpus"].get<int>(), 80);
  }
  EXPECT_EQ(disaggregated, 1);
  int sglang_host_rows = -1, sglang_latency_rows = -1;
  for (const auto& p : j["parameters"]) {
    if (p["name"] == "engines.sglang.graph_fixed") sglang_host_rows = p["rows"].get<int>();
    if (p["name"] == "engines.sglang.request_latency") sglang_latency_rows = p["rows"].get<int>();
  }
  EXPECT_GT(sglang_latency_rows, 0);
  EXPECT_EQ(sglang_latency_rows, sglang_host_rows - 1);
  // The JSON for tools: MAPE per metric as fractions, in-sample and CV.
  ASSERT_TRUE(j["metrics"].is_object());
  for (const auto& m : j["mape"]) {
    const auto& f = j["metrics"][m["metric"].get<std::string>()];
    EXPECT_EQ(f["rows"], m["rows"]);
    EXPECT_NEAR(f["mape"].get<double>() * 100, m["mape_in_sample_pct"].get<double>(), 1e-9);
    EXPECT_NEAR(f["cv_mape"].get<double>() * 100, m["mape_cv_pct"].get<double>(), 1e-9);
  }
  EXPECT_EQ(j["folds"].size(), 2u);  // hgx-h200/deepseek-r1 and hgx-b200/deepseek-r1
  for (const auto& r : j["rows"]) {
    for (const auto& e : r["metrics"]) {
      EXPECT_GT(e["predicted_in_sample"].get<double>(), 0.0);
      EXPECT_GT(e["predicted_cv"].get<double>(), 0.0);
    }
  }
  for (const auto& m : j["mape"]) EXPECT_FALSE(m["mape_cv_pct"].is_null()) << m;
  for (const auto& p : j["periods"]) {
    for (const auto& m : p["mape"]) EXPECT_FALSE(m["mean_error_cv_pct"].is_null()) << p;
  }
  // The serving-points-2 fixture rows report a median TTFT (their ttft_s_p50 column): it is
  // predicted and compared (every prediction positive, checked above with the other metrics).
  ASSERT_TRUE(j["metrics"].contains("ttft_s_median"));
  EXPECT_GT(j["metrics"]["ttft_s_median"]["rows"].get<int>(), 0);
}

// InferenceX's MTP rows ran on random-token prompts: their acceptance is the fitted
// random_prompts.tokens_per_step (within its grid), fitted on them alone; a row that states its
// acceptance length is not among them.
TEST(ValidateCli, RandomPromptAcceptanceIsFittedOnInferenceXSpeculativeRows) {
  const fs::path dir = fs::temp_directory_path() / ("agentsim_validate_accept_" + std::to_string(::getpid()));
  fs::create_directories(dir / "set");
  std::ifstream in(kRoot + "/experiments/validation/measured/serving-points-2/serving_points.csv");
  std::ofstream out(dir / "set" / "serving_points.csv");
  std::string line;
  std::getline(in, line);
  out << line << "\n";
  while (std::getline(in, line)) {
    if (line.rfind("IXF-h200-sglang-fp8-mtp-agg-1k1k-tp8ep1-c4,", 0) == 0 ||
        line.rfind("IXF-h200-sglang-fp8-none-agg-1k1k-tp8ep1-c4,", 0) == 0 || line.rfind("TRTB7-NGRAM-BS1,", 0) == 0) {
      out << line << "\n";
    }
  }
  out.close();
  const auto [code, text] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " +
                                (dir / "set").string() + " --cv --json -j 2");
  ASSERT_EQ(code, 0) << text;
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["rows_mapped"], 2) << "the n-gram row is not the model's drafter";
  bool found = false;
  for (const auto& p : j["parameters"]) {
    if (p["name"] != "random_prompts.tokens_per_step") continue;
    found = true;
    EXPECT_EQ(p["rows"], 1);
    EXPECT_GE(p["fitted"].get<double>(), 1.0);
    EXPECT_LE(p["fitted"].get<double>(), 3.0);
  }
  EXPECT_TRUE(found) << j["parameters"];
  fs::remove_all(dir);
}

// A row whose throughput is half what its own median TTFT and TPOT imply for its closed loop is
// listed as suspect and kept in the headline MAPE; the MAPE without it is reported beside.
TEST(ValidateCli, RowsWhoseThroughputContradictsTheirLatenciesAreFlaggedAndKept) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_validate_cli_loop";
  fs::create_directories(dir);
  // Implied by the latencies: 8 x 1024 / (0.33 + 1023 x 0.0128) = 610.2 tok/s on 8 GPUs = 76.3 a GPU.
  std::ofstream(dir / "m.csv") << "id,source,system,model,plan,gpus,isl,osl,concurrency,output_tok_s_per_gpu,"
                                  "total_tok_s_per_gpu,agent_output_tok_s,ttft_s_mean,ttft_s_median,tpot_s_mean,"
                                  "tpot_s_median,power_w_per_gpu,notes\n"
                                  "steady,S,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,76.3,,,,0.33,,0.0128,,\n"
                                  "stalled,T,hgx-h200,deepseek-r1,tp=8,8,1024,1024,8,38.0,,,,0.33,,0.0128,,\n";
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " +
                               (dir / "m.csv").string() + " --json -j 2");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["closed_loop_suspect"].size(), 1u);
  EXPECT_EQ(j["closed_loop_suspect"][0]["id"], "stalled");
  EXPECT_NEAR(j["closed_loop_suspect"][0]["ratio"].get<double>(), 38.0 / 76.27, 0.01);
  EXPECT_EQ(j["metrics"]["output_tok_s_per_gpu"]["rows"], 2);
  EXPECT_EQ(j["metrics_closed_loop_consistent"]["output_tok_s_per_gpu"]["rows"], 1);
  for (const auto& r : j["rows"]) EXPECT_TRUE(r["closed_loop_ratio"].is_number()) << r["id"];
  fs::remove_all(dir);
}

// Errors per calendar quarter of the rows' run dates: the fixture's serving-points-2 rows were run
// on 2026-02-06, 2026-02-07 and 2026-05-20 and its measured-runs and serving-points rows state no
// date. Each period's MAPE and mean signed error are those of its own rows.
TEST(ValidateCli, ErrorsByWhenTheRowsWereMeasured) {
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " + kRoot +
                               "/tests/calibration/fixtures/measured --json -j 2");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  ASSERT_EQ(j["periods"].size(), 3u);
  const std::string names[] = {"2026Q1", "2026Q2", "undated"};
  const int counts[] = {2, 1, 2};
  int total = 0;
  for (std::size_t p = 0; p < 3; ++p) {
    const auto& period = j["periods"][p];
    EXPECT_EQ(period["period"], names[p]);
    EXPECT_EQ(period["rows"].get<int>(), counts[p]);
    total += period["rows"].get<int>();
    // The period's output-rate errors, from its rows' own entries.
    double abs_sum = 0, sum = 0;
    int rows = 0;
    for (const auto& r : j["rows"]) {
      // The fixture's run dates and their quarters, by hand.
      static const std::map<std::string, std::string> kQuarter = {
          {"", "undated"}, {"2026-02-06", "2026Q1"}, {"2026-02-07", "2026Q1"}, {"2026-05-20", "2026Q2"}};
      const std::string date = r["run_date"].is_null() ? "" : r["run_date"].get<std::string>();
      ASSERT_TRUE(kQuarter.count(date)) << "a run date the fixture does not hold: " << date;
      if (kQuarter.at(date) != names[p]) continue;
      for (const auto& e : r["metrics"]) {
        if (e["metric"] != "output_tok_s_per_gpu") continue;
        abs_sum += std::abs(e["error_in_sample_pct"].get<double>());
        sum += e["error_in_sample_pct"].get<double>();
        ++rows;
      }
    }
    ASSERT_GT(rows, 0);
    bool found = false;
    for (const auto& m : period["mape"]) {
      if (m["metric"] != "output_tok_s_per_gpu") continue;
      found = true;
      EXPECT_EQ(m["rows"].get<int>(), rows);
      EXPECT_NEAR(m["mape_in_sample_pct"].get<double>(), abs_sum / rows, 1e-9);
      EXPECT_NEAR(m["mean_error_in_sample_pct"].get<double>(), sum / rows, 1e-9);
      EXPECT_TRUE(m["mape_cv_pct"].is_null());  // no --cv
    }
    EXPECT_TRUE(found) << period;
  }
  EXPECT_EQ(total, j["rows_mapped"].get<int>());
}

// --since keeps the rows measured on or after a date; every other row is listed with its reason,
// and a date that is not one is refused before anything runs.
TEST(ValidateCli, SinceKeepsTheRowsMeasuredFromADate) {
  const std::string cmd = "validate " + kRoot + "/experiments/validation/validate.yaml --measured " + kRoot +
                          "/tests/calibration/fixtures/measured --json -j 2 --since ";
  const auto [code, out] = run(cmd + "2026-05-01");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  EXPECT_EQ(j["since"], "2026-05-01");
  EXPECT_EQ(j["rows_read"], 10);
  EXPECT_EQ(j["rows_mapped"], 1);
  ASSERT_EQ(j["rows"].size(), 1u);
  EXPECT_EQ(j["rows"][0]["run_date"], "2026-05-20");
  EXPECT_EQ(j["rows"][0]["experts"], "fp8");  // the routed experts' format, as mapped (the row's FP8)
  EXPECT_TRUE(j["rows"][0]["speculative"].get<bool>());
  int before = 0, undated = 0;
  for (const auto& s : j["unmapped"]) {
    const std::string reason = s["reason"];
    before += reason.starts_with("measured before --since 2026-05-01 (run date '2026-02-0");
    undated += reason == "no measurement date in its source (--since 2026-05-01)";
  }
  EXPECT_EQ(before, 2);
  // the measured-runs row, the serving-points row it did not duplicate and the two perf-overview rows
  EXPECT_EQ(undated, 4);
  EXPECT_EQ(j["rows_skipped"].get<int>(), 9);
  ASSERT_EQ(j["periods"].size(), 1u);
  EXPECT_EQ(j["periods"][0]["period"], "2026Q2");

  for (const std::string bad : {"2026-13-01", "2026-5-1", "yesterday"}) {
    const auto [c2, o2] = run(cmd + bad);
    EXPECT_EQ(c2, 2) << bad;
    EXPECT_NE(o2.find("--since: expected a calendar date YYYY-MM-DD, got '" + bad + "'"), std::string::npos) << o2;
    EXPECT_EQ(o2.find('{'), std::string::npos) << o2;
  }
  const auto [c3, o3] = run(cmd + "2030-01-01");
  EXPECT_EQ(c3, 2);
  EXPECT_NE(o3.find("no row measured on or after --since 2030-01-01 could be mapped"), std::string::npos) << o3;
}

// Two systems that ran the same work are compared: the ratio of their output tok/s per GPU,
// measured and predicted, from the rows' own figures; a row of other work is not paired.
TEST(ValidateCli, SystemsThatRanTheSameWorkAreCompared) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_validate_cli_pairs";
  fs::create_directories(dir);
  std::ofstream(dir / "m.csv")
      << "id,source,system,model,plan,gpus,isl,osl,concurrency,engine,output_tok_s_per_gpu,total_tok_s_per_gpu,"
         "agent_output_tok_s,ttft_s_mean,tpot_s_mean,tpot_s_median,power_w_per_gpu,notes\n"
         "h200,S,hgx-h200,deepseek-r1,\"tp=8,ep=1\",8,1024,1024,16,sglang,110,,,,,,,\n"
         "b200,S,hgx-b200,deepseek-r1,\"tp=8,ep=1\",8,1024,1024,16,sglang,230,,,,,,,\n"
         "b200-8k,S,hgx-b200,deepseek-r1,\"tp=8,ep=1\",8,1024,8192,16,sglang,200,,,,,,,\n";
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " +
                               (dir / "m.csv").string() + " --json -j 2");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  std::map<std::string, double> predicted;
  for (const auto& r : j["rows"]) predicted[r["id"]] = r["metrics"][0]["predicted_in_sample"].get<double>();
  const auto& c = j["system_comparisons"];
  EXPECT_EQ(c["metric"], "output_tok_s_per_gpu");
  EXPECT_EQ(c["predictions"], "in_sample");
  EXPECT_EQ(c["pairs"], 1);
  ASSERT_EQ(c["systems"].size(), 1u);
  const auto& p = c["systems"][0];
  EXPECT_EQ(p["a"], "hgx-b200");
  EXPECT_EQ(p["b"], "hgx-h200");
  EXPECT_NEAR(p["measured_ratio_median"].get<double>(), 110.0 / 230.0, 1e-12);
  const double pred = predicted["h200"] / predicted["b200"];
  EXPECT_NEAR(p["predicted_ratio_median"].get<double>(), pred, 1e-12);
  EXPECT_NEAR(p["ratio_error_median_pct"].get<double>(), (pred / (110.0 / 230.0) - 1) * 100, 1e-9);
  EXPECT_EQ(p["same_winner"], pred < 1 ? 1 : 0);
  // The text report prints the same comparison.
  const auto [text_code, text] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " +
                                     (dir / "m.csv").string() + " -j 2");
  ASSERT_EQ(text_code, 0) << text;
  EXPECT_NE(text.find("systems compared on the same work"), std::string::npos) << text;
  EXPECT_NE(text.find("hgx-b200       hgx-h200"), std::string::npos) << text;
  // --comparisons writes them (of the CV predictions) for explain --compare; without --cv it is refused.
  const auto [refused, why] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " +
                                  (dir / "m.csv").string() + " --comparisons " + (dir / "c.yaml").string());
  EXPECT_EQ(refused, 2) << why;
  EXPECT_NE(why.find("add --cv"), std::string::npos) << why;
  EXPECT_FALSE(fs::exists(dir / "c.yaml"));
  const auto [cv_code, cv_out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " +
                                     (dir / "m.csv").string() + " --cv --json -j 2 --comparisons " +
                                     (dir / "c.yaml").string());
  ASSERT_EQ(cv_code, 0) << cv_out;
  const auto cvj = nlohmann::json::parse(cv_out);
  EXPECT_EQ(cvj["system_comparisons"]["predictions"], "cv");
  const agentsim::calib::SystemComparisons written = agentsim::calib::load_system_comparisons((dir / "c.yaml").string());
  ASSERT_EQ(written.systems.size(), 1u);
  EXPECT_EQ(written.pairs, 1);
  EXPECT_DOUBLE_EQ(written.systems[0].predicted_ratio_median,
                   cvj["system_comparisons"]["systems"][0]["predicted_ratio_median"].get<double>());
  EXPECT_NE(written.provenance.find("--comparisons"), std::string::npos) << written.provenance;
  fs::remove_all(dir);
}

TEST(ValidateCli, UnknownColumnIsAnErrorAndNothingIsPrinted) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_validate_cli_col";
  fs::create_directories(dir / "set");
  std::ofstream(dir / "set" / "p.csv") << "model,isl,osl,gpu,parallelism,precision,output_tokens_per_s_per_gpu,speed\n"
                                          "DeepSeek-R1-0528,1000,1000,B200,DEP4,FP4,6463,1\n";
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " +
                               (dir / "set").string() + " --json");
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find((dir / "set" / "p.csv").string() + ":1: speed: unknown column"), std::string::npos) << out;
  EXPECT_EQ(out.find('{'), std::string::npos) << out;
  fs::remove_all(dir);
}

TEST(ValidateCli, UnresolvableRowNamesItsLine) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_validate_cli";
  fs::create_directories(dir);
  std::ofstream(dir / "m.csv")
      << "id,source,system,model,plan,gpus,isl,osl,concurrency,output_tok_s_per_gpu,total_tok_s_per_gpu,"
         "agent_output_tok_s,ttft_s_mean,tpot_s_mean,tpot_s_median,power_w_per_gpu,notes\n"
         "a,S,hgx-h201,llama-3.1-8b,tp=1,1,128,16,2,100,,,,,,,\n";
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " +
                               (dir / "m.csv").string());
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find((dir / "m.csv").string() + ":2: system: unknown system 'hgx-h201' (did you mean 'hgx-h200'?)"),
            std::string::npos)
      << out;
  fs::remove_all(dir);
}

}  // namespace
