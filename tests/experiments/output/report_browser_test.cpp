// Renders real sweeps' report.html and a two-run compare.html in headless Chromium:
// no console errors, every plot laid out, readable ticks, one curve per system with
// labelled read-offs whose laid-out boxes never overlap (also on a page crowded on purpose),
// a non-blank screenshot, the comparison table's rows; and the report command's bad input.
#include <gtest/gtest.h>
#include "tests/support/file_text.hpp"
#include "tests/support/source_root.hpp"
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "experiments/output/report_charts.hpp"
#include "experiments/output/report_html.hpp"
#include "experiments/output/svg_plot.hpp"

namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;
using agentsim::test_support::slurp;
const std::string kBin = AGENTSIM_BINARY;

std::string sh(const std::string& cmd, int* code) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) out += buf;
  const int status = pclose(p);
  *code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

const fs::path& dir() {
  static const fs::path d = fs::temp_directory_path() / ("agentsim_report_browser_" + std::to_string(::getpid()));
  return d;
}

std::string experiment(const std::string& name, const std::string& extra) {
  return "name: " + name +
         "\nmodel: llama-3.1-70b\nsystems: [hgx-h200, hgx-b200]\n"
         "deployment: {tp: 8}\nreadoffs: {agent_speeds: [40]}\n"
         "serving: {step_overhead: \"2ms\", efficiency: {compute: 0.7, memory: 0.8}}\n"
         "workload:\n  trace: " +
         kRoot +
         "/workloads/traces/claude-code-sample/requests.csv\n"
         "  concurrency: [1, 8, 32]\n  warmup: \"10s\"\n  window: \"30s\"\n" +
         extra;
}

// Chromium's DOM after scripts ran; `console` gets the page's console and script-error lines.
std::string render(const fs::path& page, std::string* console) {
  const fs::path log = dir() / "chromium.log";
  int code = -1;
  std::string dom =
      sh("/usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
         "--disable-component-update --disable-sync --no-first-run --enable-logging=stderr --v=0 "
         "--user-data-dir=" +
             (dir() / "profile").string() + " --dump-dom file://" + page.string() + " 2>" + log.string(),
         &code);
  EXPECT_EQ(code, 0);
  console->clear();
  std::istringstream in(slurp(log));
  for (std::string line; std::getline(in, line);) {
    if (line.find("CONSOLE") != std::string::npos || line.find("Uncaught") != std::string::npos)
      *console += line + "\n";
  }
  return dom;
}

// A PNG screenshot of `page` at width x height, via Chromium's --screenshot; returns the file.
fs::path screenshot(const fs::path& page, const std::string& name, int width, int height) {
  const fs::path png = dir() / name;
  int code = -1;
  const std::string out =
      sh("/usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
         "--disable-component-update --disable-sync --no-first-run --hide-scrollbars --user-data-dir=" +
             (dir() / "profile").string() + " --window-size=" + std::to_string(width) + "," +
             std::to_string(height) + " --screenshot=" + png.string() + " file://" + page.string() + " 2>&1",
         &code);
  EXPECT_EQ(code, 0) << out;
  return png;
}

// A PNG's width and height from its IHDR chunk (0, 0 if it is not a PNG).
std::pair<unsigned, unsigned> png_size(const fs::path& png) {
  const std::string d = slurp(png);
  if (d.size() < 24 || d.compare(0, 8, "\x89PNG\r\n\x1a\n") != 0 || d.compare(12, 4, "IHDR") != 0) return {0, 0};
  auto be32 = [&](std::size_t at) {
    unsigned v = 0;
    for (std::size_t i = 0; i < 4; ++i) v = (v << 8) | static_cast<unsigned char>(d[at + i]);
    return v;
  };
  return {be32(16), be32(20)};
}

struct Box {
  double left, top, right, bottom;
};

// The laid-out boxes of the read-off labels of the <svg> with this id (the page's script writes
// them as data-label-boxes="l,t,r,b;...").
std::vector<Box> label_boxes(const std::string& dom, const std::string& id) {
  const auto at = dom.find("id=\"" + id + "\"");
  std::vector<Box> out;
  if (at == std::string::npos) return out;
  const auto tag_end = dom.find('>', at);
  const std::string tag = dom.substr(dom.rfind("<svg", at), tag_end - dom.rfind("<svg", at));
  std::smatch m;
  if (!std::regex_search(tag, m, std::regex("data-label-boxes=\"([^\"]*)\""))) {
    ADD_FAILURE() << "no data-label-boxes on #" << id << ": " << tag;
    return out;
  }
  std::stringstream all(m[1].str());
  for (std::string one; std::getline(all, one, ';');) {
    Box b{};
    if (std::sscanf(one.c_str(), "%lf,%lf,%lf,%lf", &b.left, &b.top, &b.right, &b.bottom) == 4) out.push_back(b);
  }
  return out;
}

void expect_apart(const std::vector<Box>& boxes, const std::string& what) {
  for (std::size_t i = 0; i < boxes.size(); ++i) {
    EXPECT_GT(boxes[i].right - boxes[i].left, 20) << what << " label " << i << " is not laid out";
    EXPECT_GT(boxes[i].bottom - boxes[i].top, 5) << what << " label " << i;
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      const Box& a = boxes[i];
      const Box& b = boxes[j];
      const bool apart = a.right <= b.left || b.right <= a.left || a.bottom <= b.top || b.bottom <= a.top;
      EXPECT_TRUE(apart) << what << ": labels " << i << " (" << a.left << "," << a.top << "," << a.right << ","
                         << a.bottom << ") and " << j << " (" << b.left << "," << b.top << "," << b.right << ","
                         << b.bottom << ") overlap";
    }
  }
}

// The markup of the <svg> with this id.
std::string svg_by_id(const std::string& dom, const std::string& id) {
  const auto at = dom.find("id=\"" + id + "\"");
  if (at == std::string::npos) return "";
  const auto start = dom.rfind("<svg", at);
  return dom.substr(start, dom.find("</svg>", at) - start);
}

int count(const std::string& s, const std::string& what) {
  int n = 0;
  for (auto p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) ++n;
  return n;
}

std::vector<std::string> matches(const std::string& s, const std::string& re) {
  const std::regex r(re);
  std::vector<std::string> out;
  for (auto it = std::sregex_iterator(s.begin(), s.end(), r); it != std::sregex_iterator(); ++it) {
    out.push_back((*it)[1].str());
  }
  return out;
}

// Every axis tick label is a short plain number: at most 4 significant characters, no exponent.
void expect_readable_ticks(const std::string& dom) {
  const auto ticks = matches(dom, "<text class=\"tick [xy]\"[^>]*>([^<]*)</text>");
  EXPECT_GE(ticks.size(), 20u);
  const std::regex plain("-?[0-9]+(\\.[0-9]+)?[kMG]?");
  for (const auto& t : ticks) {
    EXPECT_TRUE(std::regex_match(t, plain)) << "tick '" << t << "'";
    std::size_t digits = 0;
    for (char c : t) digits += (c >= '0' && c <= '9') ? 1 : 0;
    EXPECT_LE(digits, 4u) << "tick '" << t << "'";
  }
}

class ReportBrowser : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    fs::remove_all(dir());
    fs::create_directories(dir());
    std::ofstream(dir() / "base.yaml") << experiment("base", "");
    std::ofstream(dir() / "whatif.yaml")
        << experiment("whatif", "what_if: {h200: {hbm_bandwidth: \"5.6TB/s\"}}\n");
    int code = -1;
    base_log_ = sh(kBin + " run " + (dir() / "base.yaml").string() + " -j 2 --no-run-table --out " +
                       (dir() / "base").string() + " 2>&1",
                   &code);
    base_rc_ = code;
    whatif_log_ = sh(kBin + " run " + (dir() / "whatif.yaml").string() + " -j 2 --no-run-table --out " +
                         (dir() / "whatif").string() + " --baseline " + (dir() / "base").string() + " 2>&1",
                     &code);
    whatif_rc_ = code;
  }
  static void TearDownTestSuite() { fs::remove_all(dir()); }
  void SetUp() override {
    ASSERT_EQ(base_rc_, 0) << base_log_;
    ASSERT_EQ(whatif_rc_, 0) << whatif_log_;
    ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "install Debian's chromium (cmake/install_deps.sh does)";
  }
  static inline int base_rc_ = -1, whatif_rc_ = -1;
  static inline std::string base_log_, whatif_log_;
};

TEST_F(ReportBrowser, ConsoleErrorsAreCaught) {
  // The check below is only worth something if a broken page fails it.
  std::ofstream(dir() / "broken.html")
      << "<!DOCTYPE html><html><body><script>no_such_function();</script></body></html>";
  std::string console;
  render(dir() / "broken.html", &console);
  EXPECT_NE(console.find("no_such_function"), std::string::npos) << console;
}

TEST_F(ReportBrowser, ReportRendersReadableChartsWithoutConsoleErrors) {
  std::string console;
  const std::string dom = render(dir() / "base" / "report.html", &console);
  EXPECT_EQ(console, "");
  // Five plots: headline, single-agent speed, TTFT, step breakdown, cache hit rate; each drawn.
  const auto areas = matches(dom, "<svg class=\"plot\"[^>]*data-drawn-area=\"([0-9]+)\"");
  EXPECT_EQ(areas.size(), 5u) << dom.substr(0, 2000);
  for (const auto& a : areas) EXPECT_GT(std::stol(a), 1000);
  for (const auto& w : matches(dom, "<svg class=\"plot\"[^>]*width=\"([^\"]*)\"")) EXPECT_EQ(w, "100%");
  expect_readable_ticks(dom);
  const std::string headline = svg_by_id(dom, "headline");
  ASSERT_FALSE(headline.empty());
  EXPECT_NE(headline.find("(millions)"), std::string::npos);
  EXPECT_EQ(count(headline, "<polyline"), 2) << "one curve per system";
  EXPECT_EQ(matches(headline, "data-name=\"([^\"]*)\""),
            (std::vector<std::string>{"hgx-h200 1x(tp=8) on 8 GPUs", "hgx-b200 1x(tp=8) on 8 GPUs"}));
  const auto labels = matches(headline, "<text class=\"readoff-label\"[^>]*>([^<]*)</text>");
  EXPECT_GE(labels.size(), 1u);
  for (const auto& l : labels) EXPECT_TRUE(std::regex_match(l, std::regex("40 tok/s: [0-9.,]+ M"))) << l;
  const auto boxes = label_boxes(dom, "headline");
  EXPECT_EQ(boxes.size(), labels.size());
  expect_apart(boxes, "report.html");
  std::smatch nan;
  EXPECT_FALSE(std::regex_search(dom, nan, std::regex("\\bnan\\b", std::regex::icase)))
      << "no nan anywhere a person reads: ..." << nan.prefix().str().substr(std::max<std::size_t>(nan.prefix().length(), 80) - 80);
  EXPECT_EQ(dom.find("e+0"), std::string::npos) << "no exponent anywhere a person reads";
  // Hover: every point carries the run's numbers.
  const auto titles = matches(headline, "<circle class=\"point\"[^>]*><title>([^<]*)</title>");
  EXPECT_GE(titles.size(), 4u);
  EXPECT_EQ(static_cast<int>(titles.size()), count(headline, "<circle class=\"point\""))
      << "every point has one";
  for (const auto& t : titles) {
    EXPECT_NE(t.find("concurrency"), std::string::npos) << t;
    EXPECT_NE(t.find("TTFT p90"), std::string::npos) << t;
  }
  // TTFT on a log axis: decade ticks only.
  for (const auto& t : matches(svg_by_id(dom, "ttft"), "<text class=\"tick y\"[^>]*>([^<]*)</text>")) {
    EXPECT_TRUE(std::regex_match(t, std::regex("0\\.0*1|10*"))) << t;
  }
  EXPECT_NE(svg_by_id(dom, "single-agent").find("Single-agent speed (concurrency 1)"), std::string::npos);
  EXPECT_EQ(count(svg_by_id(dom, "single-agent"), "<rect class=\"bar\""), 2);
  // What this rests on: efficiencies, assumed catalog lines of the entries used, the validation band.
  EXPECT_NE(dom.find("What this rests on"), std::string::npos);
  EXPECT_NE(dom.find("compute 0.7, memory 0.8"), std::string::npos);
  EXPECT_NE(dom.find("hwmodels/catalog/accelerators/h200.yaml:"), std::string::npos);
  EXPECT_NE(dom.find("hwmodels/catalog/systems/hgx-b200.yaml:"), std::string::npos);
  EXPECT_EQ(dom.find("mi300x.yaml"), std::string::npos) << "only the entries the run used";
  EXPECT_NE(dom.find("No validation band for this regime"), std::string::npos);
  EXPECT_EQ(dom.find("src=\"http"), std::string::npos) << "the report is self-contained";
  EXPECT_EQ(dom.find("href=\"http"), std::string::npos);
}

TEST_F(ReportBrowser, CrowdedReadoffLabelsDoNotOverlapOnceLaidOut) {
  // Seven systems read off at 100 and 60 tok/s within a few tok/s and a few M of each other (the
  // default experiment's shape): Chromium's own text boxes, not the placement's estimate, must
  // stay apart.
  using namespace agentsim::exp;
  LineChart c;
  c.id = "crowded";
  c.title = "crowded";
  c.y_unit = 1e6;
  for (int i = 0; i < 7; ++i) {
    Series s;
    s.name = "system " + std::to_string(i);
    s.color = i;
    s.points = {{20, 9e8 - 2e7 * i}, {60 + i, 7e8 + 8e6 * i}, {100 + 2 * i, 6e8 + 1e7 * i}, {400, 1e8}};
    for (double speed : {60.0, 100.0}) {
      const double y = speed == 60 ? 7e8 + 8e6 * i : 6e8 + 1e7 * i;
      s.markers.emplace_back(speed + (speed == 60 ? i : 2 * i), y);
      s.marker_labels.push_back(readoff_label(speed, y));
    }
    c.series.push_back(s);
  }
  std::ofstream(dir() / "crowded.html") << report_page_head("crowded") + svg_line_chart(c) + report_page_tail();
  std::string console;
  const std::string dom = render(dir() / "crowded.html", &console);
  EXPECT_EQ(console, "");
  const auto boxes = label_boxes(dom, "crowded");
  EXPECT_EQ(boxes.size(), 14u);
  expect_apart(boxes, "crowded page");
}

TEST_F(ReportBrowser, ScreenshotOfTheReportIsDrawn) {
  const fs::path shot = screenshot(dir() / "base" / "report.html", "report.png", 1200, 2400);
  ASSERT_TRUE(fs::exists(shot)) << "chromium wrote no screenshot";
  EXPECT_EQ(png_size(shot), (std::pair<unsigned, unsigned>{1200, 2400}));
  // A blank page of the same size compresses to almost nothing; the report's charts and text do not.
  std::ofstream(dir() / "blank.html") << "<!DOCTYPE html><html><body></body></html>";
  const fs::path blank = screenshot(dir() / "blank.html", "blank.png", 1200, 2400);
  ASSERT_TRUE(fs::exists(blank));
  EXPECT_GT(fs::file_size(shot), 10 * fs::file_size(blank))
      << fs::file_size(shot) << " bytes against a blank page's " << fs::file_size(blank);
}

TEST_F(ReportBrowser, ComparisonOverlaysRunsAndTabulatesDeltas) {
  const fs::path page = dir() / "compare.html";
  int code = -1;
  const std::string out = sh(kBin + " report " + (dir() / "base").string() + " " +
                                 (dir() / "whatif").string() + " --out " + page.string() + " 2>&1",
                             &code);
  ASSERT_EQ(code, 0) << out;
  std::string console;
  const std::string dom = render(page, &console);
  EXPECT_EQ(console, "");
  expect_readable_ticks(dom);
  const std::string headline = svg_by_id(dom, "headline");
  EXPECT_EQ(count(headline, "<polyline"), 4) << "two systems in each of two runs";
  EXPECT_EQ(count(headline, "stroke-dasharray"), 2 + 2)
      << "the baseline's curves (and legend lines) are dashed";
  EXPECT_NE(headline.find("data-name=\"whatif: hgx-h200 1x(tp=8) on 8 GPUs\""), std::string::npos);
  const auto rows = matches(dom, "<tr class=\"delta\">(.*?)</tr>");
  ASSERT_EQ(rows.size(), 4u) << "per system: the one speed target and the single-agent speed";
  const auto cells = [](const std::string& row) { return matches(row, "<td[^>]*>([^<]*)</td>"); };
  const auto h200 = cells(rows[0]), h200_single = cells(rows[1]), b200 = cells(rows[2]), b200_single = cells(rows[3]);
  ASSERT_GE(h200.size(), 8u);
  ASSERT_GE(b200.size(), 8u);
  ASSERT_GE(h200_single.size(), 8u);
  ASSERT_GE(b200_single.size(), 8u);
  EXPECT_EQ(h200[0], "hgx-h200");
  EXPECT_EQ(h200[1], "40 tok/s");
  EXPECT_EQ(h200[2], "base");
  EXPECT_EQ(h200[3], "whatif");
  EXPECT_EQ(h200[4], "total tok/s per MW");
  EXPECT_EQ(h200_single[1], "single agent");
  EXPECT_EQ(h200_single[4], "tok/s per agent");
  EXPECT_EQ(b200[0], "hgx-b200");
  EXPECT_EQ(b200[7], "+0.0%") << "the what-if leaves the B200 alone";
  EXPECT_EQ(b200_single[7], "+0.0%");
  EXPECT_NE(h200[7], "+0.0%") << "more HBM bandwidth moves the H200's read-off";
  EXPECT_EQ(h200_single[7].substr(0, 1), "+") << "and speeds up a single agent";
  // `run --baseline` wrote the same comparison table.
  const std::string from_run = slurp(dir() / "whatif" / "compare.html");
  EXPECT_EQ(matches(from_run, "<tr class=\"delta\">(.*?)</tr>"),
            matches(slurp(page), "<tr class=\"delta\">(.*?)</tr>"));
}

TEST_F(ReportBrowser, BadRunFolderIsExitTwoAndWritesNothing) {
  int code = -1;
  const fs::path page = dir() / "bad.html";
  std::string out = sh(kBin + " report " + (dir() / "base").string() + " " + (dir() / "missing").string() +
                           " --out " + page.string() + " 2>&1",
                       &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find((dir() / "missing").string()), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(page));
  fs::create_directories(dir() / "half");
  fs::copy_file(dir() / "base" / "summary.csv", dir() / "half" / "summary.csv");
  out = sh(kBin + " report " + (dir() / "base").string() + " " + (dir() / "half").string() + " --out " +
               page.string() + " 2>&1",
           &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_NE(out.find((dir() / "half" / "readoffs.csv").string()), std::string::npos) << out;
  EXPECT_FALSE(fs::exists(page));
  out = sh(kBin + " report " + (dir() / "base").string() + " --out " + page.string() + " 2>&1", &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_FALSE(fs::exists(page));
  out = sh(kBin + " run " + (dir() / "base.yaml").string() + " --out " + (dir() / "never").string() +
               " --baseline " + (dir() / "missing").string() + " 2>&1",
           &code);
  EXPECT_EQ(code, 2) << out;
  EXPECT_FALSE(fs::exists(dir() / "never")) << "the baseline is checked before simulating";
  out = sh(kBin + " report --help 2>&1", &code);
  EXPECT_EQ(code, 0);
  EXPECT_NE(out.find("agentsim report out/base out/whatif --out compare.html"), std::string::npos) << out;
}

}  // namespace
