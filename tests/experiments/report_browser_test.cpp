// Renders a real sweep's report.html in headless Chromium and checks every plot
// was laid out with non-empty geometry (the page records each SVG's drawn area).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>

namespace {
namespace fs = std::filesystem;

const std::string kRoot = AGENTSIM_SOURCE_DIR;

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

TEST(ReportBrowser, ChromiumRendersEveryPlot) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_report_browser";
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "e.yaml") << "name: browser\nmodel: llama-3.1-70b\nsystems: [hgx-h200, hgx-b200]\n"
                                   "deployment: {tp: 8}\nreadoffs: {agent_speeds: [40]}\n"
                                   "serving: {step_overhead: \"2ms\", efficiency: {compute: 0.7, memory: 0.8}}\n"
                                   "workload:\n  trace: " + kRoot + "/workloads/traces/claude-code-sample/requests.csv\n"
                                   "  concurrency: [1, 8, 32]\n  warmup: \"10s\"\n  window: \"30s\"\n";
  int code = -1;
  const std::string run = sh(std::string(AGENTSIM_BINARY) + " run " + (dir / "e.yaml").string() + " -j 2 --out " +
                                 (dir / "out").string() + " 2>&1",
                             &code);
  ASSERT_EQ(code, 0) << run;
  ASSERT_TRUE(fs::exists("/usr/bin/chromium")) << "install Debian's chromium (cmake/install_deps.sh does)";
  const std::string dom =
      sh("/usr/bin/chromium --headless --no-sandbox --disable-gpu --disable-background-networking "
         "--disable-component-update --disable-sync --no-first-run --user-data-dir=" + (dir / "profile").string() +
             " --dump-dom file://" + (dir / "out" / "report.html").string() + " 2>/dev/null",
         &code);
  ASSERT_EQ(code, 0);
  // Four plots: per-MW curves, TTFT, step breakdown, cache hit rate; each with a drawn area > 0.
  const std::regex svg("<svg class=\"plot\"[^>]*data-drawn-area=\"([0-9]+)\"");
  int plots = 0;
  for (auto it = std::sregex_iterator(dom.begin(), dom.end(), svg); it != std::sregex_iterator(); ++it) {
    ++plots;
    EXPECT_GT(std::stol((*it)[1].str()), 1000) << "plot " << plots << " drew nothing";
  }
  EXPECT_EQ(plots, 4) << dom.substr(0, 2000);
  EXPECT_NE(dom.find("<polyline"), std::string::npos);
  EXPECT_EQ(dom.find("src=\"http"), std::string::npos) << "the report is self-contained";
  fs::remove_all(dir);
}

}  // namespace
