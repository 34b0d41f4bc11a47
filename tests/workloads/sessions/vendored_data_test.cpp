// The data the project carries (traces, measured serving runs, published kernel measurements) is
// exactly what its PROVENANCE.md says: every folder's "Vendored files" table lists each file with
// its data-row count, size and SHA-256, and every file present is listed. SHA-256 comes from
// coreutils' sha256sum; CSV rows are counted with the project's RFC 4180 reader.
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "sim/core/csv_reader.hpp"

namespace {
namespace fs = std::filesystem;

const fs::path kRoot = AGENTSIM_SOURCE_DIR;

struct Entry {
  std::string rows;  // a count, or "-" for whole-JSON files
  std::uintmax_t bytes = 0;
  std::string sha256;
};

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(' ');
  const auto e = s.find_last_not_of(' ');
  return b == std::string::npos ? std::string() : s.substr(b, e - b + 1);
}

// The "| file | rows | bytes | sha256 |" table of a PROVENANCE.md.
std::map<std::string, Entry> manifest(const fs::path& provenance) {
  std::ifstream in(provenance);
  std::map<std::string, Entry> out;
  std::string line;
  bool in_table = false;
  while (std::getline(in, line)) {
    if (line == "| file | rows | bytes | sha256 |") {
      in_table = true;
      continue;
    }
    if (!in_table) continue;
    if (line.rfind("|---", 0) == 0) continue;
    if (line.empty() || line[0] != '|') break;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string c;
    while (std::getline(ss, c, '|')) cells.push_back(trim(c));
    if (cells.size() < 4) break;
    out[cells[0]] = Entry{cells[1], std::stoull(cells[2]), cells[3]};
  }
  return out;
}

std::string sha256(const fs::path& p) {
  FILE* f = popen(("sha256sum '" + p.string() + "'").c_str(), "r");
  if (!f) return {};
  char buf[128] = {};
  const bool ok = std::fgets(buf, sizeof buf, f) != nullptr;
  pclose(f);
  return ok ? std::string(buf).substr(0, 64) : std::string();
}

std::string rows(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (p.extension() == ".csv") {
    agentsim::core::CsvReader csv(in, p.string());
    long long n = 0;
    while (csv.next()) ++n;
    return std::to_string(n);
  }
  if (p.extension() == ".jsonl") {
    long long n = 0;
    std::string line;
    while (std::getline(in, line)) n += line.find_first_not_of(" \t\r") != std::string::npos ? 1 : 0;
    return std::to_string(n);
  }
  return "-";
}

// Every vendored folder: each directory under these roots holding a PROVENANCE.md.
std::vector<fs::path> vendored_folders() {
  std::vector<fs::path> out;
  for (const char* root : {"workloads/traces", "workloads/catalog/acceptance", "experiments/validation/measured",
                           "calibration/data/published"}) {
    for (const auto& e : fs::recursive_directory_iterator(kRoot / root)) {
      if (e.is_regular_file() && e.path().filename() == "PROVENANCE.md") out.push_back(e.path().parent_path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(VendoredData, EveryFolderTheTestsAndExamplesUseIsVendored) {
  std::set<std::string> names;
  for (const auto& d : vendored_folders()) names.insert(fs::relative(d, kRoot).string());
  for (const char* want : {"workloads/traces/claude-code", "workloads/traces/mooncake", "workloads/traces/azure",
                           "workloads/traces/claude-code-sample", "workloads/traces/claude-code-raw-sample",
                           "workloads/catalog/acceptance",
                           "experiments/validation/measured/serving-points",
                           "experiments/validation/measured/serving-points-2",
                           "experiments/validation/measured/trtllm-perf-overview",
                           "calibration/data/published/kernels"}) {
    EXPECT_TRUE(names.count(want)) << want << " has no PROVENANCE.md";
  }
}

TEST(VendoredData, ChecksumsSizesAndRowCountsMatchTheirProvenance) {
  int files = 0;
  for (const fs::path& dir : vendored_folders()) {
    const auto listed = manifest(dir / "PROVENANCE.md");
    ASSERT_FALSE(listed.empty()) << dir << "/PROVENANCE.md has no \"| file | rows | bytes | sha256 |\" table";
    std::set<std::string> present;
    for (const auto& e : fs::recursive_directory_iterator(dir)) {
      if (!e.is_regular_file() || e.path().filename() == "PROVENANCE.md") continue;
      present.insert(fs::relative(e.path(), dir).string());
    }
    for (const auto& f : present) EXPECT_TRUE(listed.count(f)) << dir / f << " is not listed in its PROVENANCE.md";
    for (const auto& [name, want] : listed) {
      const fs::path p = dir / name;
      ASSERT_TRUE(fs::is_regular_file(p)) << p << " is listed but missing";
      EXPECT_EQ(fs::file_size(p), want.bytes) << p;
      EXPECT_EQ(sha256(p), want.sha256) << p;
      EXPECT_EQ(rows(p), want.rows) << p;
      ++files;
    }
  }
  EXPECT_GE(files, 30);
}

// The row counts the upstream PROVENANCE files state for the full traces (independent of the table).
TEST(VendoredData, FullTracesHaveTheUpstreamRowCounts) {
  const auto cc = manifest(kRoot / "workloads/traces/claude-code/PROVENANCE.md");
  EXPECT_EQ(cc.at("requests.csv").rows, "49334");
  EXPECT_EQ(cc.at("traces_summary.csv").rows, "710");
  const auto mc = manifest(kRoot / "workloads/traces/mooncake/PROVENANCE.md");
  EXPECT_EQ(mc.at("conversation_trace.jsonl").rows, "12031");
  EXPECT_EQ(mc.at("synthetic_trace.jsonl").rows, "3993");
  const auto az = manifest(kRoot / "workloads/traces/azure/PROVENANCE.md");
  EXPECT_EQ(az.at("AzureLLMInferenceTrace_code.csv").rows, "8819");
  EXPECT_EQ(az.at("AzureLLMInferenceTrace_conv.csv").rows, "19366");
}

}  // namespace
