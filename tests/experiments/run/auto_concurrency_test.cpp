// concurrency: auto doubles load until every read-off is bracketed, then bisects each target to
// within 2% of concurrency; a fixed list that stops too early leaves the same target outside the
// swept range. The single-agent read-off is the concurrency-1 run's p50 per-agent speed.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core/csv_reader.hpp"
#include "tests/support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;
using agentsim::core::CsvReader;

using agentsim::test_support::kRoot;

class AutoConcurrency : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() / ("agentsim_autoconc_" + std::to_string(::getpid()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  fs::path run(const std::string& concurrency, const std::string& name, const std::string& plans = "deployment: {tp: 8}\n",
               const std::string& slo = "") {
    const fs::path p = dir / (name + ".yaml");
    std::ofstream(p) << "name: auto\nseed: 3\nmodel: llama-3.1-70b\nsystem: hgx-h200\n" << plans
                     << "serving: {step_overhead: \"2ms\", efficiency: {compute: 0.7, memory: 0.8, network: 0.8}}\n"
                        "readoffs: {agent_speeds: [30]}\n" << slo <<
                        "workload:\n  trace: " + kRoot + "/workloads/traces/claude-code-sample/requests.csv\n"
                        "  concurrency: " + concurrency + "\n  warmup: \"10s\"\n  window: \"120s\"\n  start_spread: \"5s\"\n";
    const auto r = agentsim::test_support::run("run " + p.string() + " -j 2 --out " + (dir / name).string());
    EXPECT_EQ(r.code, 0) << r.output;
    return dir / name;
  }
};

struct Row {
  std::map<std::string, std::string> f;
};
std::vector<Row> rows(const fs::path& csv_path) {
  std::ifstream in(csv_path);
  CsvReader csv(in, csv_path.string());
  std::vector<std::string> names = {"system", "target_kind", "target_agent_tok_s", "in_swept_range", "note",
                                    "total_tok_s_per_mw"};
  std::vector<Row> out;
  while (csv.next()) {
    Row r;
    for (const auto& n : names) r.f[n] = csv.field(csv.column(n));
    out.push_back(r);
  }
  return out;
}

TEST_F(AutoConcurrency, BracketsATargetAFixedListMisses) {
  const auto fixed = rows(run("[1, 2, 4, 8]", "fixed") / "readoffs.csv");
  ASSERT_EQ(fixed.size(), 2u);  // speed 30, single_agent
  EXPECT_EQ(fixed[0].f.at("target_kind"), "speed");
  EXPECT_EQ(fixed[0].f.at("in_swept_range"), "false") << fixed[0].f.at("note");
  EXPECT_EQ(fixed[0].f.at("total_tok_s_per_mw"), "");

  const fs::path out = run("auto", "auto");
  const auto aut = rows(out / "readoffs.csv");
  ASSERT_EQ(aut.size(), 2u);
  EXPECT_EQ(aut[0].f.at("in_swept_range"), "true") << aut[0].f.at("note");
  EXPECT_GT(std::stod(aut[0].f.at("total_tok_s_per_mw")), 0);

  // The runs: the ladder 1, 2, 4, ... up to the first level below 30 tok/s, then the bisection.
  std::ifstream in(out / "summary.csv");
  CsvReader csv(in, "summary.csv");
  std::vector<std::pair<long long, double>> ladder, probes;
  while (csv.next()) {
    const long long c = csv.integer(csv.column("concurrency"));
    const double speed = csv.number(csv.column("agent_output_tok_s_p50"));
    (csv.integer(csv.column("bisection")) ? probes : ladder).emplace_back(c, speed);
  }
  ASSERT_GE(ladder.size(), 2u);
  for (std::size_t i = 0; i < ladder.size(); ++i) EXPECT_EQ(ladder[i].first, 1LL << i) << "doubling from 1";
  EXPECT_LT(ladder.back().second, 30) << "stops at the first level below the target";
  EXPECT_GE(ladder[ladder.size() - 2].second, 30);
  EXPECT_FALSE(probes.empty()) << "a bracket wider than 2% is bisected";
  // The final bracket: the fastest-failing and slowest-meeting probes (or ladder ends) within 2%.
  long long good = ladder[ladder.size() - 2].first, bad = ladder.back().first;
  for (const auto& [c, s] : probes) {
    if (s >= 30) good = std::max(good, c);
    else bad = std::min(bad, c);
  }
  EXPECT_LE(bad - good, std::max<long long>(1, static_cast<long long>(0.02 * static_cast<double>(good))));
  EXPECT_NE(aut[0].f.at("note").find("between concurrency " + std::to_string(good) + " and " + std::to_string(bad)),
            std::string::npos)
      << aut[0].f.at("note");
}

// One run of summary.csv: its concurrency, per-agent speeds, power and total tokens/s per MW, and
// whether it is a narrowing probe.
struct Point {
  long long c = 0;
  double p10 = 0, p50 = 0, power_w = 0, per_mw = 0;
  bool probe = false;
};
std::map<std::string, std::vector<Point>> points_by_plan(const fs::path& summary) {
  std::map<std::string, std::vector<Point>> by_plan;
  std::ifstream in(summary);
  CsvReader csv(in, summary.string());
  while (csv.next()) {
    by_plan[csv.field(csv.column("deployment"))].push_back(
        {csv.integer(csv.column("concurrency")), csv.number(csv.column("agent_output_tok_s_p10")),
         csv.number(csv.column("agent_output_tok_s_p50")), csv.number(csv.column("power_w")),
         csv.number(csv.column("total_tok_s_per_mw")), csv.integer(csv.column("bisection")) != 0});
  }
  return by_plan;
}

// A plan's ladder (its runs less the narrowing probes) and the first rung pair whose `speed` falls
// from at least `target` to below it: the index of the upper rung, 0 when none.
std::vector<Point> ladder_of(const std::vector<Point>& points) {
  std::vector<Point> ladder;
  for (const Point& p : points) {
    if (!p.probe) ladder.push_back(p);
  }
  return ladder;
}
std::size_t crossing(const std::vector<Point>& ladder, double Point::*speed, double target) {
  for (std::size_t i = 1; i < ladder.size(); ++i) {
    if (ladder[i - 1].*speed >= target && ladder[i].*speed < target) return i;
  }
  return 0;
}

// An SLO read-off on the ladder is its bracket's floor, so a plan met at 2 and not at 4 agents can
// beat one met at 4 and not at 8 once narrowed: every plan whose bracket's best case (its first
// failing level over its last meeting run's power) exceeds the best floor is narrowed, not only the
// plan the ladder chose.
TEST_F(AutoConcurrency, EveryPlanThatCouldWinAnSloTierIsNarrowed) {
  const fs::path out = run("auto", "slo", "search: {tp: [2, 4, 8]}\n",
                           "slo: {tiers: [30], speed_percentile: 10, ttft: \"1000s\", ttft_percentile: 90}\n");
  std::map<std::string, std::vector<Point>> by_plan = points_by_plan(out / "summary.csv");
  ASSERT_EQ(by_plan.size(), 3u);
  struct Bracket {
    long long lo = 0, hi = 0;
    double floor_per_mw = 0, best_per_mw = 0;
  };
  std::map<std::string, Bracket> brackets;
  double best_floor = 0;
  for (const auto& [plan, points] : by_plan) {
    const std::vector<Point> ladder = ladder_of(points);
    const std::size_t i = crossing(ladder, &Point::p10, 30);
    if (i == 0) continue;
    const double mw = ladder[i - 1].power_w / 1e6;
    brackets[plan] = {ladder[i - 1].c, ladder[i].c, static_cast<double>(ladder[i - 1].c) / mw,
                      static_cast<double>(ladder[i].c) / mw};
    best_floor = std::max(best_floor, brackets[plan].floor_per_mw);
  }
  ASSERT_GE(brackets.size(), 2u);
  int narrowed = 0;
  for (const auto& [plan, b] : brackets) {
    if (!(b.best_per_mw > best_floor) || b.hi - b.lo <= 1) continue;
    bool probed = false;
    for (const Point& p : by_plan[plan]) probed = probed || (p.probe && p.c > b.lo && p.c < b.hi);
    EXPECT_TRUE(probed) << plan << ": met at " << b.lo << ", not at " << b.hi << " could beat " << best_floor
                        << " agents per MW";
    ++narrowed;
  }
  EXPECT_GE(narrowed, 2) << "the case has a plan besides the ladder's choice that could win";
}

// A speed read-off on the ladder interpolates its bracket's two runs, so a plan whose bracket holds a
// better run than the ladder's choice reaches can win once narrowed: every such plan is narrowed,
// not only the plan the ladder chose.
TEST_F(AutoConcurrency, EveryPlanThatCouldWinASpeedTargetIsNarrowed) {
  const fs::path out = run("auto", "speed", "search: {tp: [2, 4, 8]}\n");
  std::map<std::string, std::vector<Point>> by_plan = points_by_plan(out / "summary.csv");
  ASSERT_EQ(by_plan.size(), 3u);
  struct Bracket {
    long long lo = 0, hi = 0;
    double ladder_per_mw = 0, best_per_mw = 0;
  };
  std::map<std::string, Bracket> brackets;
  double chosen = 0;  // the ladder's read-off: the best interpolated figure at 30 tok/s
  std::string chosen_plan;
  for (const auto& [plan, points] : by_plan) {
    const std::vector<Point> ladder = ladder_of(points);
    const std::size_t i = crossing(ladder, &Point::p50, 30);
    if (i == 0) continue;
    const Point &a = ladder[i - 1], &b = ladder[i];
    const double f = (a.p50 - 30) / (a.p50 - b.p50);
    brackets[plan] = {a.c, b.c, a.per_mw + f * (b.per_mw - a.per_mw), std::max(a.per_mw, b.per_mw)};
    if (brackets[plan].ladder_per_mw > chosen) {
      chosen = brackets[plan].ladder_per_mw;
      chosen_plan = plan;
    }
  }
  ASSERT_GE(brackets.size(), 2u);
  int narrowed = 0;
  for (const auto& [plan, b] : brackets) {
    if (plan == chosen_plan || !(b.best_per_mw > chosen) || b.hi - b.lo <= 1) continue;
    bool probed = false;
    for (const Point& p : by_plan[plan]) probed = probed || (p.probe && p.c > b.lo && p.c < b.hi);
    EXPECT_TRUE(probed) << plan << ": bracket " << b.lo << "-" << b.hi << " holds " << b.best_per_mw
                        << " total tok/s per MW, above the ladder's choice " << chosen;
    ++narrowed;
  }
  EXPECT_GE(narrowed, 1) << "the case has a plan besides the ladder's choice that could win";
}

TEST_F(AutoConcurrency, SingleAgentIsTheConcurrencyOneSpeed) {
  const fs::path out = run("[1, 4]", "single");
  const auto ro = rows(out / "readoffs.csv");
  ASSERT_EQ(ro.size(), 2u);
  EXPECT_EQ(ro[1].f.at("target_kind"), "single_agent");
  EXPECT_EQ(ro[1].f.at("in_swept_range"), "true");
  std::ifstream in(out / "summary.csv");
  CsvReader csv(in, "summary.csv");
  ASSERT_TRUE(csv.next());
  ASSERT_EQ(csv.integer(csv.column("concurrency")), 1);
  EXPECT_DOUBLE_EQ(std::stod(ro[1].f.at("target_agent_tok_s")), csv.number(csv.column("agent_output_tok_s_p50")));

  const auto none = rows(run("[2, 4]", "nosingle") / "readoffs.csv");
  EXPECT_EQ(none[1].f.at("in_swept_range"), "false");
  EXPECT_NE(none[1].f.at("note").find("no concurrency-1 run"), std::string::npos);
}

}  // namespace
