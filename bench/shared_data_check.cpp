// Optional check of the vendored traces against the larger originals in a reference-data folder
// given on the command line (not a test: a clone has no such folder, and nothing builds against it).
// Imports all 74 upstream raw Claude Code JSON files and checks each imports to the same sessions as
// its rows of the vendored requests.csv, and that the vendored requests.csv is byte-identical.
//   bench_shared_data_check SHARED_DIR   (the folder holding data/traces/claude-code-weka)
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "workloads/sessions/claude_code_csv.hpp"
#include "workloads/sessions/claude_code_json.hpp"

namespace fs = std::filesystem;
using namespace agentsim;

namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: bench_shared_data_check SHARED_DIR\n");
    return 2;
  }
  const fs::path shared = argv[1];
  const fs::path raw = shared / "data/traces/claude-code-weka/raw";
  const fs::path vendored = fs::path(AGENTSIM_SOURCE_DIR) / "workloads/traces/claude-code/requests.csv";
  if (!fs::is_directory(raw)) {
    std::fprintf(stderr, "bench_shared_data_check: %s not found (this optional check needs the reference data folder)\n",
                 raw.c_str());
    return 2;
  }
  int failures = 0;
  if (slurp(vendored) != slurp(shared / "data/traces/claude-code-weka/requests.csv")) {
    std::printf("FAIL vendored requests.csv differs from shared\n");
    ++failures;
  }
  try {
    std::vector<std::string> files;
    for (const auto& e : fs::directory_iterator(raw)) files.push_back(e.path().string());
    std::sort(files.begin(), files.end());
    const wl::Trace json = wl::load_claude_code_json(files);
    const wl::Trace csv = wl::load_claude_code_csv_trace(vendored.string());
    std::map<std::string, std::size_t> index;
    for (std::size_t i = 0; i < csv.sessions.size(); ++i) index[csv.sessions[i].id] = i;
    long long turns = 0, mismatched = 0;
    for (const wl::Session& js : json.sessions) {
      const auto it = index.find(js.id);
      if (it == index.end() || csv.sessions[it->second].turns.size() != js.turns.size()) {
        ++mismatched;
        continue;
      }
      const wl::Session& cs = csv.sessions[it->second];
      for (std::size_t k = 0; k < js.turns.size(); ++k) {
        const wl::Turn &a = js.turns[k], &b = cs.turns[k];
        ++turns;
        if (a.input_tokens != b.input_tokens || a.output_tokens != b.output_tokens || a.stop != b.stop ||
            a.prefix_blocks != b.prefix_blocks || js.new_blocks(a) != cs.new_blocks(b)) {
          ++mismatched;
        }
      }
    }
    std::printf("%zu raw files, %zu sessions, %lld turns, %lld mismatches (shared PROVENANCE: 74 files)\n",
                files.size(), json.sessions.size(), turns, mismatched);
    failures += mismatched > 0 || files.size() != 74 ? 1 : 0;
  } catch (const core::Error& e) {
    std::printf("FAIL %s\n", e.what());
    ++failures;
  }
  std::printf("%s\n", failures == 0 ? "OK" : "FAILED");
  return failures == 0 ? 0 : 1;
}
