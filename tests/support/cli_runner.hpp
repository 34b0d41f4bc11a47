#pragma once
// Runs the agentsim binary built alongside the tests (AGENTSIM_BINARY) and
// captures its exit code and combined stdout/stderr, for end-to-end CLI tests.
#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "tests/support/file_text.hpp"

namespace agentsim::test_support {

struct CliResult {
  int code;
  std::string output;
};

// Any shell command line (e.g. `mpirun … agentsim …`), with its exit code and combined output.
inline CliResult run_shell(const std::string& command) {
  CliResult r{-1, ""};
  FILE* p = popen((command + " 2>&1").c_str(), "r");
  if (!p) return r;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, p)) r.output += buf;
  const int status = pclose(p);
  r.code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `args` is appended to the binary's path and run through the shell, in `cwd` when given
// (so messages name files relative to it).
inline CliResult run(const std::string& args, const std::filesystem::path& cwd = {}) {
  const std::string cd = cwd.empty() ? "" : "cd '" + cwd.string() + "' && ";
  return run_shell(cd + std::string(AGENTSIM_BINARY) + " " + args);
}


}  // namespace agentsim::test_support
