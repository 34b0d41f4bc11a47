// agentsim validate: every shipped measured row is predicted and compared.
#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include <nlohmann/json.hpp>

namespace {
namespace fs = std::filesystem;

const std::string kRoot = AGENTSIM_SOURCE_DIR;

using agentsim::test_support::run;

TEST(ValidateCli, EveryShippedRowGetsPredictedAndCompared) {
  const auto [code, out] = run("validate " + kRoot + "/experiments/validation/validate.yaml --measured " + kRoot +
                               "/experiments/validation/measured_runs.csv --json -j 2");
  ASSERT_EQ(code, 0) << out;
  const auto j = nlohmann::json::parse(out);
  std::set<std::string> ids;
  for (const auto& e : j["errors"]) {
    ids.insert(e["id"].get<std::string>());
    const double meas = e["measured"], pred = e["predicted"], err = e["error_pct"];
    EXPECT_GT(pred, 0.0);
    EXPECT_NEAR(err, (pred - meas) / meas * 100.0, 1e-9);
  }
  EXPECT_EQ(ids.size(), 11u) << "one or more errors for every row of measured_runs.csv";
  ASSERT_FALSE(j["mape"].empty());
  EXPECT_EQ(j["worst"].size(), 5u);
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
