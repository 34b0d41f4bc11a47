// `agentsim --version` names the version and source revision; every command and subcommand's
// --help ends with a worked example of itself.
#include <gtest/gtest.h>

#include <regex>
#include <sstream>

#include "tests/support/cli_runner.hpp"

namespace {

using agentsim::test_support::run;

TEST(CliHelp, VersionNamesTheSourceRevision) {
  const auto r = run("--version");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_TRUE(std::regex_search(r.output, std::regex("^agentsim [0-9]+\\.[0-9]+\\.[0-9]+ \\(source revision [0-9a-f]{12}\\)\n$")))
      << r.output;
}

// The subcommand names listed under "SUBCOMMANDS:" / "Subcommands:" of a --help text.
std::vector<std::string> subcommands(const std::string& help) {
  std::vector<std::string> out;
  std::istringstream in(help);
  std::string line;
  bool listing = false;
  while (std::getline(in, line)) {
    if (line == "SUBCOMMANDS:" || line == "Subcommands:") {
      listing = true;
      continue;
    }
    if (!listing) continue;
    std::smatch m;
    if (!std::regex_match(line, m, std::regex("^  ([a-z][a-z-]*)\\b.*"))) break;
    out.push_back(m[1].str());
  }
  return out;
}

TEST(CliHelp, EveryCommandHasAnExampleOfItself) {
  const auto top = run("--help");
  ASSERT_EQ(top.code, 0) << top.output;
  const auto commands = subcommands(top.output);
  ASSERT_GE(commands.size(), 9u) << top.output;
  int checked = 0;
  std::vector<std::string> paths(commands.begin(), commands.end());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const auto h = run(paths[i] + " --help");
    ASSERT_EQ(h.code, 0) << paths[i] << "\n" << h.output;
    const auto example = h.output.find("Example:\n");
    const std::string line = "\n  agentsim " + paths[i];
    auto at = h.output.find(line, example);
    while (at != std::string::npos && h.output.size() > at + line.size() &&
           h.output[at + line.size()] != ' ' && h.output[at + line.size()] != '\n') {
      at = h.output.find(line, at + 1);
    }
    EXPECT_TRUE(example != std::string::npos && at != std::string::npos) << "`agentsim " << paths[i] << " --help` has no example of itself:\n" << h.output;
    ++checked;
    if (paths[i].find(' ') == std::string::npos) {
      for (const auto& child : subcommands(h.output)) paths.push_back(paths[i] + " " + child);
    }
  }
  EXPECT_GE(checked, 18) << "commands and their subcommands";
}

}  // namespace
