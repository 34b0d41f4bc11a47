#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include <nlohmann/json.hpp>

namespace {

std::string run(const std::string& args, int* rc) {
  const std::string cmd = std::string(AGENTSIM_BINARY) + " --root " + AGENTSIM_SOURCE_DIR + " " + args + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (size_t n = fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
  *rc = WEXITSTATUS(pclose(p));
  return out;
}

TEST(ModelCommand, ShowDeepSeekV3Json) {
  int rc = 0;
  const auto j = nlohmann::json::parse(run("model show deepseek-v3 --json --plan tp=8,ep=8", &rc));
  EXPECT_EQ(rc, 0);
  EXPECT_NEAR(j["parameters"]["total"].get<double>(), 671.03e9, 0.01e9);
  EXPECT_NEAR(j["parameters"]["active_decode"].get<double>(), 36.63e9, 0.01e9);
  EXPECT_DOUBLE_EQ(j["kv_bytes_per_token"].get<double>(), 70272.0);
  EXPECT_DOUBLE_EQ(j["engram"]["table_bytes"].get<double>(), 0.0);
  EXPECT_EQ(j["plan"]["devices"].get<int>(), 8);
}

TEST(ModelCommand, ShowDeepSeekV41FlashJson) {
  int rc = 0;
  const auto j = nlohmann::json::parse(run("model show deepseek-v4.1-flash --json --engram host", &rc));
  EXPECT_EQ(rc, 0);
  EXPECT_NEAR(j["parameters"]["total"].get<double>(), 552.4e9, 0.1e9);
  EXPECT_LT(j["parameters"]["active_prefill"].get<double>(), 0.6 * j["parameters"]["active_decode"].get<double>());
  EXPECT_DOUBLE_EQ(j["kv_bytes_per_token"].get<double>(), 890.0);
  EXPECT_DOUBLE_EQ(j["engram"]["table_bytes"].get<double>(), 196.6e9);
  EXPECT_DOUBLE_EQ(j["per_device"]["host_bytes"].get<double>(), 202.8e9);
}

TEST(ModelCommand, ListAndErrors) {
  int rc = 0;
  const std::string list = run("model list", &rc);
  EXPECT_EQ(rc, 0);
  EXPECT_NE(list.find("kimi-k3"), std::string::npos);
  EXPECT_NE(run("model show deepseek-v9", &rc).find("did you mean"), std::string::npos);
  EXPECT_EQ(rc, 2);
  run("model show deepseek-v3 --plan tp=8,ep=3", &rc);
  EXPECT_EQ(rc, 2);
}

// `model show` has no system, but a plan that cannot shard the model is as wrong there as
// under `explain` (it printed per-device figures for a third of 32 heads).
TEST(ModelCommand, RejectsAPlanThatCannotShardTheModel) {
  int rc = 0;
  const std::string out = run("model show llama-3.1-8b --plan tp=3", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(out.find("--plan tp=3 for llama-3.1-8b: tp=3 does not divide the 32 attention heads"), std::string::npos)
      << out;
  const std::string ep = run("model show llama-3.1-8b --plan tp=2,ep=2", &rc);
  EXPECT_EQ(rc, 2);
  EXPECT_NE(ep.find("ep > 1 but the model has no routed experts"), std::string::npos) << ep;
}

}  // namespace
