// results.h5 is what docs/experiments.md says it is: the test reads the layout table and the root
// attributes from the doc itself, then opens a real run's file with the HDF5 C++ API and checks
// every documented dataset, column and attribute, and that /runs holds summary.csv's numbers.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"
#include <unistd.h>

#include <H5Cpp.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "sim/core/csv_reader.hpp"
#include "tests/support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

struct DocDataset {
  std::string path;                  // e.g. "runs", "requests/0000"
  std::vector<std::string> columns;  // documented member names
};

// The rows of the "### results.h5 layout" table: `| `/name` | rows | columns |`.
std::vector<DocDataset> documented_datasets(std::vector<std::string>* attributes) {
  std::ifstream in(kRoot + "/docs/experiments.md");
  std::string line, section;
  bool in_layout = false;
  std::vector<DocDataset> out;
  while (std::getline(in, line)) {
    if (line.rfind("### results.h5 layout", 0) == 0) {
      in_layout = true;
      continue;
    }
    if (!in_layout) continue;
    if (line.rfind('#', 0) == 0) break;
    section += line + "\n";
    if (line.rfind("| `/", 0) != 0) continue;
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string c;
    while (std::getline(ss, c, '|')) cells.push_back(c);
    DocDataset d;
    const std::smatch m = [&] {
      std::smatch mm;
      std::regex_search(cells[0], mm, std::regex("`/([a-z_]+)(/NNNN)?`"));
      return mm;
    }();
    d.path = m[1].str() + (m[2].matched ? "/0000" : "");
    // Column names: the backticked or comma-separated identifiers before any parenthesis.
    std::string cols = cells[2];
    std::smatch same;
    if (std::regex_search(cols, same, std::regex("^\\s*as `/([a-z_]+)`"))) {  // "as `/readoffs`"
      for (const auto& e : out) {
        if (e.path == same[1].str()) d.columns = e.columns;
      }
      EXPECT_FALSE(d.columns.empty()) << line;
      out.push_back(d);
      continue;
    }
    cols = std::regex_replace(cols, std::regex("\\([^)]*\\)"), "");
    static const std::regex word("[a-z][a-z_0-9]*");
    for (auto it = std::sregex_iterator(cols.begin(), cols.end(), word);
         it != std::sregex_iterator(); ++it) {
      d.columns.push_back(it->str());
    }
    out.push_back(d);
  }
  // Root attributes: the backticked names in "Root attributes (strings): ..." before the table.
  const auto at = section.find("Root attributes");
  const auto end = section.find("| dataset");
  const std::string attrs = section.substr(at, end - at);
  static const std::regex quoted("`([a-z_]+)`");
  for (auto it = std::sregex_iterator(attrs.begin(), attrs.end(), quoted);
       it != std::sregex_iterator(); ++it) {
    attributes->push_back((*it)[1].str());
  }
  return out;
}

TEST(ResultsH5Layout, EveryDocumentedDatasetColumnAndAttributeIsThere) {
  std::vector<std::string> attributes;
  const auto datasets = documented_datasets(&attributes);
  ASSERT_GE(datasets.size(), 7u) << "docs/experiments.md lost its results.h5 layout table";
  ASSERT_GE(attributes.size(), 5u);

  const fs::path dir = fs::temp_directory_path() / ("agentsim_h5layout_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ofstream(dir / "e.yaml") << "name: layout\nseed: 5\nmodel: llama-3.1-70b\nsystem: hgx-h200\n"
                                   "deployment: {tp: 8}\nreadoffs: {agent_speeds: [40]}\nrecord: {steps: true}\n"
                                   "serving: {step_overhead: \"2ms\", efficiency: {compute: 0.7, memory: 0.8}}\n"
                                   "workload:\n  trace: " + kRoot + "/workloads/traces/claude-code-sample/requests.csv\n"
                                   "  concurrency: [1, 8]\n  warmup: \"10s\"\n  window: \"30s\"\n";
  const auto r = agentsim::test_support::run("run " + (dir / "e.yaml").string() + " -j 2 --out " + (dir / "o").string());
  ASSERT_EQ(r.code, 0) << r.output;

  H5::Exception::dontPrint();
  H5::H5File f((dir / "o" / "results.h5").string(), H5F_ACC_RDONLY);
  for (const auto& a : attributes) {
    if (a == "agentsim" || a.find("results") != std::string::npos) continue;  // values, not names
    EXPECT_TRUE(f.attrExists(a)) << "root attribute " << a;
  }
  for (const auto& d : datasets) {
    ASSERT_TRUE(f.nameExists(d.path)) << "/" << d.path << " is documented but missing";
    const H5::CompType type = f.openDataSet(d.path).getCompType();
    for (const auto& c : d.columns) {
      EXPECT_GE(type.getMemberIndex(c), 0) << "/" << d.path << " lacks documented column " << c;
    }
    EXPECT_EQ(static_cast<std::size_t>(type.getNmembers()), d.columns.size())
        << "/" << d.path << " has undocumented columns";
  }

  // /runs output_tok_s equals summary.csv's, row for row (same order).
  H5::DataSet runs = f.openDataSet("runs");
  hsize_t n = 0;
  runs.getSpace().getSimpleExtentDims(&n);
  H5::CompType one(sizeof(double));
  one.insertMember("output_tok_s", 0, H5::PredType::NATIVE_DOUBLE);
  std::vector<double> h5(n);
  runs.read(h5.data(), one);
  std::ifstream csv_in(dir / "o" / "summary.csv");
  agentsim::core::CsvReader csv(csv_in, "summary.csv");
  const auto col = csv.column("output_tok_s");
  std::size_t i = 0;
  while (csv.next()) {
    ASSERT_LT(i, h5.size());
    EXPECT_NEAR(h5[i], csv.number(col), 1e-9 * std::max(1.0, h5[i])) << "row " << i;
    ++i;
  }
  EXPECT_EQ(i, h5.size());
  EXPECT_GT(h5.back(), 0);
  fs::remove_all(dir);
}

}  // namespace
