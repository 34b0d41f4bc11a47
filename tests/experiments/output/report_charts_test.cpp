// The report's building blocks: 1-2-5 ticks and their labels, the SVG line chart's
// axes and hover titles, read-off deltas, reading a run folder back and "what this rests on".
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>

#include "experiments/config/experiment.hpp"
#include "experiments/output/nice_ticks.hpp"
#include "experiments/output/report_charts.hpp"
#include "experiments/output/rests_on.hpp"
#include "experiments/output/run_comparison.hpp"
#include "experiments/output/run_table.hpp"
#include "experiments/output/svg_plot.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

void expect_ticks(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-12 + 1e-9 * std::fabs(want[i])) << i;
}

TEST(ReportTicks, NiceNumbersCoverTheRangeInOneTwoFiveSteps) {
  // 94.8 / 5 = 19 -> step 20; 9.48 / 5 -> step 2; (194 - 35.3) / 5 = 31.7 -> step 50, from floor(35.3 / 50)
  // x 50.
  expect_ticks(nice_ticks(0, 94.8), {0, 20, 40, 60, 80, 100});
  expect_ticks(nice_ticks(0, 9.48), {0, 2, 4, 6, 8, 10});
  expect_ticks(nice_ticks(35.3, 194), {0, 50, 100, 150, 200});
  expect_ticks(nice_ticks(0, 0.037), {0, 0.01, 0.02, 0.03, 0.04});
  expect_ticks(nice_ticks(10, 15), {10, 11, 12, 13, 14, 15});
  expect_ticks(nice_ticks(0, 1200, 4), {0, 500, 1000, 1500});  // 300 -> 500
  // A single value is widened, not a zero-width axis.
  const auto one = nice_ticks(5, 5);
  EXPECT_LT(one.front(), 5);
  EXPECT_GT(one.back(), 5);
}

TEST(ReportTicks, DecadesOnLogAxes) {
  expect_ticks(decade_ticks(0.03, 4.2), {0.01, 0.1, 1, 10});
  expect_ticks(decade_ticks(1, 32), {1, 10, 100});
  expect_ticks(decade_ticks(0.5, 0.5), {0.1, 1});
}

TEST(ReportTicks, LabelsAreShortAndNeverExponents) {
  EXPECT_EQ(tick_label(9.48e7), "95M");
  EXPECT_EQ(tick_label(2e7, 2e7), "20M");
  EXPECT_EQ(tick_label(15000, 5000), "15k");
  EXPECT_EQ(tick_label(150, 50), "150");
  EXPECT_EQ(tick_label(12.5, 0.5), "12.5");
  EXPECT_EQ(tick_label(0.1), "0.1");
  EXPECT_EQ(tick_label(0.01), "0.01");
  EXPECT_EQ(tick_label(0.04, 0.01), "0.04");
  EXPECT_EQ(tick_label(1e-17, 0.2), "0");
  EXPECT_EQ(tick_label(-3), "-3");
  EXPECT_EQ(tick_label(1500, 500), "1500");
}

TEST(ReportNumbers, ReadableForPeopleNeverExponentsNorNan) {
  EXPECT_EQ(readable_number(620.34), "620");
  EXPECT_EQ(readable_number(6.234), "6.23");
  EXPECT_EQ(readable_number(6.2), "6.2");
  EXPECT_EQ(readable_number(0.01234), "0.0123");
  EXPECT_EQ(readable_number(9.996), "10");
  EXPECT_EQ(readable_number(3096403.4), "3,096,403");
  EXPECT_EQ(readable_number(-1234.6), "-1,235");
  EXPECT_EQ(readable_number(0), "0");
  EXPECT_EQ(readable_number(113.4, 4), "113.4");
  EXPECT_EQ(readable_number(std::nan("")), "\u2013");
  EXPECT_EQ(readable_number(INFINITY, 3, "-"), "-");
  EXPECT_EQ(number_cell(std::nan(""), 1), "-");
  EXPECT_EQ(number_cell(2.25, 1), "2.2");
  // The label: 6.2e8 tok/s per MW at 100 tok/s reads "620 M", not "6.2e+02 M".
  EXPECT_EQ(readoff_label(100, 6.2e8), "100 tok/s: 620 M");
  EXPECT_EQ(readoff_label(40, 7.214e6), "40 tok/s: 7.21 M");
}

std::vector<std::string> tick_texts(const std::string& svg) {
  static const std::regex tick("<text class=\"tick [xy]\"[^>]*>([^<]*)</text>");
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), tick); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

TEST(ReportSvg, MillionsAxisScalesToTheWindowWithHoverTitles) {
  LineChart c;
  c.id = "headline";
  c.y_unit = 1e6;
  Series s;
  s.name = "hgx-h200 tp=8";
  s.points = {{35.3, 9.48e7}, {74.9, 5.1e7}, {194, 1.2e7}};
  s.point_titles = {"a", "b <c>", "d"};
  s.markers = {{40, 9.0e7}};
  s.marker_labels = {"40 tok/s: 90 M"};
  c.series.push_back(s);
  const std::string svg = svg_line_chart(c);
  EXPECT_NE(svg.find("viewBox=\"0 0 "), std::string::npos);
  EXPECT_NE(svg.find("width=\"100%\""), std::string::npos);
  EXPECT_NE(svg.find("id=\"headline\""), std::string::npos);
  const auto ticks = tick_texts(svg);
  const std::vector<std::string> want{"0", "20", "40", "60", "80", "100", "0", "50", "100", "150", "200"};
  EXPECT_EQ(ticks, want);
  EXPECT_EQ(svg.find("e+"), std::string::npos);
  EXPECT_NE(svg.find("<title>b &lt;c&gt;</title>"), std::string::npos);
  EXPECT_NE(svg.find(">40 tok/s: 90 M</text>"), std::string::npos);
}

TEST(ReportSvg, LogAxesTickDecades) {
  LineChart c;
  c.log_x = c.log_y = true;
  c.series.push_back(Series{"s", {{1, 0.04}, {8, 0.3}, {32, 2.5}}, {}, {}, {}, false});
  EXPECT_EQ(tick_texts(svg_line_chart(c)),
            (std::vector<std::string>{"0.01", "0.1", "1", "10", "1", "10", "100"}));
}

struct Label {
  double x, y;
  std::string text;
};
std::vector<Label> readoff_labels(const std::string& svg) {
  static const std::regex label("<text class=\"readoff-label\" x=\"([-0-9.]+)\" y=\"([-0-9.]+)\"[^>]*>([^<]*)</text>");
  std::vector<Label> out;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), label); it != std::sregex_iterator(); ++it) {
    out.push_back({std::stod((*it)[1].str()), std::stod((*it)[2].str()), (*it)[3].str()});
  }
  return out;
}

TEST(ReportSvg, CrowdedReadoffLabelsArePlacedApartInsideThePlot) {
  // Seven curves whose read-offs fall on nearly the same spot (the default experiment's systems
  // at 100 tok/s): drawn at one fixed offset every label would overlap the next.
  LineChart c;
  c.y_unit = 1e6;
  for (int i = 0; i < 7; ++i) {
    Series s;
    s.name = "system " + std::to_string(i);
    s.points = {{20, 9e8}, {100 + i, 6e8 + 1e7 * i}, {400, 1e8}};
    s.markers = {{100 + i, 6e8 + 1e7 * i}};
    s.marker_labels = {readoff_label(100, 6e8 + 1e7 * i)};
    c.series.push_back(s);
  }
  const std::string svg = svg_line_chart(c);
  const auto labels = readoff_labels(svg);
  ASSERT_EQ(labels.size(), 7u);
  // Boxes as the placement sizes them (the browser test checks the laid-out boxes).
  auto box = [](const Label& l) {
    return std::array<double, 4>{l.x, l.y - 12, l.x + text_width_px(l.text, 12), l.y + 4};
  };
  for (std::size_t i = 0; i < labels.size(); ++i) {
    const auto a = box(labels[i]);
    EXPECT_GE(a[0], 70) << labels[i].text;  // inside the plot frame (kL = 70, width 820 - 70 - 24)
    EXPECT_LE(a[2], 820 - 24) << labels[i].text;
    for (std::size_t j = i + 1; j < labels.size(); ++j) {
      const auto b = box(labels[j]);
      const bool apart = a[2] <= b[0] || b[2] <= a[0] || a[3] <= b[1] || b[3] <= a[1];
      EXPECT_TRUE(apart) << labels[i].text << " overlaps " << labels[j].text;
    }
  }
  EXPECT_NE(svg.find("<line class=\"leader\""), std::string::npos) << "labels pushed away are joined to their circle";
}

TEST(ReportSvg, ErrorBandsShadeTheCurveAndBarTheReadoff) {
  LineChart c;
  c.y_unit = 1e6;
  Series s;
  s.name = "a";
  s.points = {{10, 5e6}, {50, 4e6}, {90, 1e6}, {120, 0.5e6}};
  s.band = {{4e6, 6e6}, {3e6, 5e6}, {0.8e6, 1.4e6}, {std::nan(""), std::nan("")}};
  s.markers = {{60, 3.5e6}};
  s.marker_bands = {{3e6, 4.4e6}};
  s.marker_labels = {"60 tok/s: 3.5 M"};
  c.series.push_back(s);
  std::string svg = svg_line_chart(c);
  const std::smatch m = [&] {
    std::smatch mm;
    std::regex_search(svg, mm, std::regex("<polygon class=\"band\"[^>]*points=\"([^\"]*)\""));
    return mm;
  }();
  ASSERT_TRUE(m[1].matched) << svg;
  // Three banded points (the fourth has none): three along the top, three back along the bottom.
  const std::string pts = m[1].str();
  EXPECT_EQ(std::count(pts.begin(), pts.end(), ','), 6) << pts;
  EXPECT_NE(svg.find("<path class=\"readoff-band\""), std::string::npos);
  // The axis covers the band's top (6 M), not only the curve's (5 M).
  const auto ticks = tick_texts(svg);
  EXPECT_NE(std::find(ticks.begin(), ticks.end(), "6"), ticks.end());
  // Without bands nothing is shaded.
  c.series[0].band.clear();
  c.series[0].marker_bands.clear();
  svg = svg_line_chart(c);
  EXPECT_EQ(svg.find("class=\"band\""), std::string::npos);
  EXPECT_EQ(svg.find("readoff-band"), std::string::npos);
}

TEST(ReportCharts, SingleAgentBarsAreTheReadoffTablesRows) {
  RunTable t;
  t.label = "run";
  for (double level : {1.0, 8.0}) {
    for (const char* dep : {"tp=8", "tp=4"}) {
      RunPoint p{"hgx-h200", dep, level, level == 1 ? (dep[3] == '8' ? 300.0 : 450.0) : 100.0, 1e6, 1e5, 0.2, false,
                 0, 0, 0, 0};
      t.points.push_back(p);
    }
  }
  ReadoffRow speed;
  speed.system = "hgx-h200";
  speed.deployment = "tp=8";  // the curve's plan (the 100 tok/s read-off's)
  speed.target_kind = "speed";
  speed.target_agent_tok_s = 100;
  speed.total_tok_s_per_mw = 1e6;
  ReadoffRow single = speed;
  single.deployment = "tp=4";  // the fastest plan with one agent
  single.target_kind = "single_agent";
  single.target_agent_tok_s = 450;
  single.agent_tok_s_lo = 400;
  single.agent_tok_s_hi = 480;
  t.readoffs = {speed, single};
  const BarChart c = single_agent_chart({t});
  ASSERT_EQ(c.bars.size(), 1u);
  EXPECT_EQ(c.bars[0], "hgx-h200 tp=4");
  EXPECT_EQ(c.values[0], 450);
  ASSERT_EQ(c.bands.size(), 1u);
  EXPECT_EQ(c.bands[0], (std::pair<double, double>{400, 480}));
  EXPECT_NE(c.title.find("as in the read-off table"), std::string::npos) << c.title;
  const std::string svg = svg_bar_chart(c);
  EXPECT_NE(svg.find(">450</text>"), std::string::npos);
  EXPECT_NE(svg.find("class=\"bar-band\""), std::string::npos);
  // A pruned single-agent row: no bar value, and the reason instead of "nan".
  t.readoffs[1].target_agent_tok_s = std::nan("");
  t.readoffs[1].note = "plan pruned: below the best bounds";
  const std::string pruned = svg_bar_chart(single_agent_chart({t}));
  EXPECT_EQ(pruned.find("nan"), std::string::npos) << pruned;
  EXPECT_NE(pruned.find("(plan pruned: below the best bounds)"), std::string::npos);
}

RunTable table(const std::string& label, double h200, double b200) {
  RunTable t;
  t.label = label;
  for (auto [sys, v] : {std::pair{"hgx-h200", h200}, std::pair{"hgx-b200", b200}}) {
    ReadoffRow r;
    r.system = sys;
    r.deployment = "tp=8";
    r.target_kind = "speed";
    r.target_agent_tok_s = 40;
    r.total_tok_s_per_mw = v;
    t.readoffs.push_back(r);
  }
  return t;
}

TEST(ReportCompare, DeltasAgainstTheBaselineForPairsInBoth) {
  RunTable b = table("whatif", 1.1e6, std::nan(""));
  b.readoffs.erase(b.readoffs.begin() + 1);  // the what-if has no b200 row
  ReadoffRow extra = b.readoffs[0];
  extra.system = "mi300x-8";
  b.readoffs.push_back(extra);
  const auto d = readoff_deltas({table("base", 1.0e6, 2.0e6), b});
  ASSERT_EQ(d.size(), 1u);
  EXPECT_EQ(d[0].system, "hgx-h200");
  EXPECT_EQ(d[0].target, "40 tok/s");
  EXPECT_NEAR(d[0].delta_pct, 10.0, 1e-9);
  const auto nan = readoff_deltas({table("base", 1.0e6, 2.0e6), table("x", std::nan(""), 3.0e6)});
  ASSERT_EQ(nan.size(), 2u);
  EXPECT_TRUE(std::isnan(nan[0].delta_pct));
  EXPECT_NEAR(nan[1].delta_pct, 50.0, 1e-9);
  const std::string html = comparison_html({table("run", 1e6, 2e6), table("run", 1.5e6, 2e6)});
  EXPECT_NE(html.find("run (2)"), std::string::npos) << "repeated labels are told apart";
  EXPECT_NE(html.find("+50.0%"), std::string::npos);
  EXPECT_NE(html.find("+0.0%"), std::string::npos);
}

TEST(ReportCompare, ReadingARunFolderNamesTheMissingOrBadFile) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_report_readback";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "summary.csv")
      << "system,deployment,level,agent_output_tok_s_p50,total_tok_s_per_mw,output_tok_s_per_mw,ttft_s_p90,"
         "bisection,skipped\nhgx-h200,tp=8,1,80,nan,nan,0.2,0,\nhgx-h200,tp=8,8,60,2e6,1e6,0.4,0,\n";
  try {
    read_run_table(dir.string());
    FAIL() << "no readoffs.csv";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find((dir / "readoffs.csv").string()), std::string::npos) << e.what();
  }
  std::ofstream(dir / "readoffs.csv")
      << "system,deployment,target_kind,target_agent_tok_s,total_tok_s_per_mw,"
         "output_tok_s_per_mw,agents_per_mw,in_swept_range,concurrency,note\n"
         "hgx-h200,tp=8,speed,70,1.5e6,nan,3,true,4.5,between\n";
  const RunTable t = read_run_table(dir.string());
  EXPECT_EQ(t.label, "agentsim_report_readback");
  ASSERT_EQ(t.points.size(), 2u);
  EXPECT_TRUE(std::isnan(t.points[0].total_tok_s_per_mw));
  ASSERT_EQ(t.readoffs.size(), 1u);
  EXPECT_EQ(t.readoffs[0].total_tok_s_per_mw, 1.5e6);
  EXPECT_EQ(shown_deployment(t, "hgx-h200"), "tp=8");
  std::ofstream(dir / "readoffs.csv", std::ios::app) << "hgx-b200,tp=8,speed,fast,1,1,1,true,1,x\n";
  try {
    read_run_table(dir.string());
    FAIL() << "malformed target";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("readoffs.csv:3"), std::string::npos) << e.what();
  }
  try {
    read_run_table((dir / "nope").string());
    FAIL() << "missing folder";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos) << e.what();
  }
  fs::remove_all(dir);
}

}  // namespace
}  // namespace agentsim::exp

namespace agentsim::exp {
namespace {

Experiment experiment_of(const std::string& model, const std::string& system, const std::string& extra) {
  const std::string root = AGENTSIM_SOURCE_DIR;
  return parse_experiment("name: t\nmodel: " + model + "\nsystem: " + system +
                              "\ndeployment: {tp: 8}\nworkload:\n  trace: " + root +
                              "/workloads/traces/claude-code-sample/requests.csv\n  concurrency: [1]\n  "
                              "warmup: 1s\n  window: 10s\n" +
                              extra,
                          root + "/experiments/examples/t.yaml", root);
}

TEST(ReportRestsOn, AssumedLinesOfTheEntriesUsedAndTheValidationBand) {
  const std::string root = AGENTSIM_SOURCE_DIR;
  const std::string ds = rests_on_html(
      experiment_of("deepseek-r1", "hgx-h200", "serving: {efficiency: {compute: 0.6, memory: 0.75}}\n"),
      root);
  EXPECT_NE(ds.find("compute 0.6, memory 0.75, network 1"), std::string::npos) << ds;
  // The H200 file's launch_floor line is marked assumed; its line number is where the file has it.
  std::ifstream acc(root + "/hwmodels/catalog/accelerators/h200.yaml");
  int n = 0, launch_line = 0;
  for (std::string line; std::getline(acc, line);) {
    ++n;
    if (line.rfind("launch_floor:", 0) == 0 && line.find("assumed") != std::string::npos) launch_line = n;
  }
  ASSERT_GT(launch_line, 0);
  EXPECT_NE(ds.find("hwmodels/catalog/accelerators/h200.yaml:" + std::to_string(launch_line)),
            std::string::npos);
  EXPECT_EQ(ds.find("b200.yaml"), std::string::npos) << "only the entries used";
  EXPECT_NE(ds.find("Measured points exist"), std::string::npos);
  EXPECT_NE(ds.find("ix870-c8 (hgx-h200)"), std::string::npos);
  EXPECT_EQ(ds.find("No validation band"), std::string::npos);
  const std::string llama = rests_on_html(experiment_of("llama-3.1-70b", "hgx-b200", ""), root);
  EXPECT_NE(llama.find("No validation band for this regime"), std::string::npos);
  EXPECT_NE(llama.find("systems/hgx-b200.yaml:"), std::string::npos);
  EXPECT_EQ(llama.find("what_if"), std::string::npos);
  const std::string whatif = rests_on_html(
      experiment_of("llama-3.1-70b", "hgx-h200", "what_if: {h200: {hbm_bandwidth: \"5.6TB/s\"}}\n"), root);
  EXPECT_NE(whatif.find("overrides catalog values with <code>what_if</code>"), std::string::npos);
}

}  // namespace
}  // namespace agentsim::exp
