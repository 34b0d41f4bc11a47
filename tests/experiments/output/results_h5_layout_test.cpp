// results.h5 is what docs/results-h5.md says it is: the test reads the page's layout list and its
// per-object tables, walks a real run's file with the HDF5 C++ API (as `h5ls -r` does), and checks
// both ways: every documented object, column and attribute is in the file with the documented
// type, and nothing in the file is undocumented. Then: tables are chunked, shuffled and deflated;
// `record: {requests: false, steps: false}` leaves those groups empty; /runs matches summary.csv.
#include <gtest/gtest.h>
#include <unistd.h>

#include <H5Cpp.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

#include "sim/core/csv_reader.hpp"
#include "tests/support/cli_runner.hpp"
#include "tests/support/source_root.hpp"

namespace {
namespace fs = std::filesystem;

using agentsim::test_support::kRoot;

// One object as the doc or the file describes it. Members are "name:type" in order.
struct Object {
  std::string kind;  // "Group" or "Dataset"
  std::vector<std::string> columns;
  std::set<std::string> attributes;  // "name:type"
};
using Layout = std::map<std::string, Object>;

Layout documented_layout() {
  std::ifstream in(kRoot + "/docs/results-h5.md");
  EXPECT_TRUE(in) << "docs/results-h5.md";
  Layout doc;
  std::string line, section, object;
  bool in_block = false;
  static const std::regex listed(R"(^(/\S*)\s+(Group|Dataset)\s*$)");
  static const std::regex heading(R"(^### `(/[^`]*)`\s*$)");
  static const std::regex row(R"(^\| `([a-z_0-9]+)` \| (column|attribute) \| (float64|string) \|)");
  while (std::getline(in, line)) {
    std::smatch m;
    if (line.rfind("## ", 0) == 0) {
      section = line.substr(3);
      object.clear();
      continue;
    }
    if (section != "Layout") continue;
    if (line.rfind("```", 0) == 0) {
      in_block = !in_block;
      continue;
    }
    if (in_block) {
      if (std::regex_match(line, m, listed)) doc[m[1].str()].kind = m[2].str();
      continue;
    }
    if (std::regex_match(line, m, heading)) {
      object = m[1].str();
      EXPECT_TRUE(doc.count(object)) << "a section for " << object << ", which the layout list lacks";
      continue;
    }
    if (!object.empty() && std::regex_search(line, m, row)) {
      const std::string member = m[1].str() + ":" + m[3].str();
      if (m[2].str() == "column") {
        doc[object].columns.push_back(member);
      } else {
        doc[object].attributes.insert(member);
      }
    }
  }
  return doc;
}

std::string type_name(const H5::DataType& t) {
  if (t.getClass() == H5T_FLOAT && t.getSize() == 8) return "float64";
  if (t.getClass() == H5T_STRING) return "string";
  return "class " + std::to_string(t.getClass()) + " size " + std::to_string(t.getSize());
}

// A four-digit index component reads as NNNN, as the doc writes it.
std::string generic(const std::string& path) {
  return std::regex_replace(path, std::regex("/[0-9]{4}$"), "/NNNN");
}

struct FileObject {
  std::string path;
  Object o;
  hsize_t rows = 0;
  bool compressed = false;  // chunked, with the shuffle and deflate filters
};

void walk(const H5::Group& g, const std::string& path, std::vector<FileObject>& out) {
  FileObject self{path.empty() ? "/" : path, {"Group", {}, {}}, 0, false};
  for (int i = 0; i < g.getNumAttrs(); ++i) {
    const H5::Attribute a = g.openAttribute(static_cast<unsigned>(i));
    self.o.attributes.insert(a.getName() + ":" + type_name(a.getDataType()));
  }
  out.push_back(self);
  for (hsize_t i = 0; i < g.getNumObjs(); ++i) {
    const std::string name = g.getObjnameByIdx(i);
    const std::string child = path + "/" + name;
    if (g.childObjType(name) == H5O_TYPE_GROUP) {
      walk(g.openGroup(name), child, out);
      continue;
    }
    FileObject d{child, {"Dataset", {}, {}}, 0, false};
    const H5::DataSet ds = g.openDataSet(name);
    const H5::CompType type = ds.getCompType();
    for (int m = 0; m < type.getNmembers(); ++m) {
      d.o.columns.push_back(type.getMemberName(static_cast<unsigned>(m)) + ":" +
                            type_name(type.getMemberDataType(static_cast<unsigned>(m))));
    }
    for (int a = 0; a < ds.getNumAttrs(); ++a) {
      const H5::Attribute at = ds.openAttribute(static_cast<unsigned>(a));
      d.o.attributes.insert(at.getName() + ":" + type_name(at.getDataType()));
    }
    ds.getSpace().getSimpleExtentDims(&d.rows);
    const H5::DSetCreatPropList plist = ds.getCreatePlist();
    bool shuffle = false, deflate = false;
    for (int f = 0; f < plist.getNfilters(); ++f) {
      unsigned flags = 0, cd[8];
      std::size_t ncd = 8;
      char fname[64];
      unsigned config = 0;
      const H5Z_filter_t id = plist.getFilter(f, flags, ncd, cd, sizeof fname, fname, config);
      shuffle = shuffle || id == H5Z_FILTER_SHUFFLE;
      deflate = deflate || id == H5Z_FILTER_DEFLATE;
    }
    d.compressed = plist.getLayout() == H5D_CHUNKED && shuffle && deflate;
    out.push_back(d);
  }
}

std::vector<FileObject> file_objects(const fs::path& file) {
  H5::Exception::dontPrint();
  const H5::H5File f(file.string(), H5F_ACC_RDONLY);
  std::vector<FileObject> out;
  walk(f.openGroup("/"), "", out);
  return out;
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}
std::string join(const std::set<std::string>& v) { return join(std::vector<std::string>(v.begin(), v.end())); }

class ResultsH5Layout : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    fs::remove_all(dir());
    fs::create_directories(dir());
    for (const bool record : {true, false}) {
      const std::string name = record ? "all" : "summary";
      std::ofstream(dir() / (name + ".yaml"))
          << "name: layout\nseed: 5\nmodel: llama-3.1-70b\nsystem: hgx-h200\n"
             "deployment: {tp: 8}\nreadoffs: {agent_speeds: [40]}\n"
          << "record: {requests: " << (record ? "true" : "false") << ", steps: " << (record ? "true" : "false")
          << "}\nserving: {step_overhead: \"2ms\", efficiency: {compute: 0.7, memory: 0.8}}\n"
             "workload:\n  trace: "
          << kRoot
          << "/workloads/traces/claude-code-sample/requests.csv\n"
             "  concurrency: [1, 8]\n  warmup: \"10s\"\n  window: \"30s\"\n";
      const auto r = agentsim::test_support::run("run " + (dir() / (name + ".yaml")).string() + " -j 2 --out " +
                                                 (dir() / name).string());
      logs_ += r.output;
      codes_ += r.code;
    }
  }
  static void TearDownTestSuite() { fs::remove_all(dir()); }
  void SetUp() override { ASSERT_EQ(codes_, 0) << logs_; }
  static const fs::path& dir() {
    static const fs::path d = fs::temp_directory_path() / ("agentsim_h5layout_" + std::to_string(::getpid()));
    return d;
  }
  static inline int codes_ = 0;
  static inline std::string logs_;
};

TEST_F(ResultsH5Layout, FileAndDocumentedLayoutAgreeBothWays) {
  const Layout doc = documented_layout();
  ASSERT_GE(doc.size(), 11u) << "docs/results-h5.md lost its layout list";
  for (const auto& [path, o] : doc) {
    if (o.kind == "Dataset") {
      EXPECT_GE(o.columns.size(), 3u) << path << " has no column table in the doc";
    }
  }
  const auto objects = file_objects(dir() / "all" / "results.h5");
  std::set<std::string> seen;
  for (const FileObject& f : objects) {
    const std::string path = generic(f.path);
    seen.insert(path);
    const auto it = doc.find(path);
    if (it == doc.end()) {
      ADD_FAILURE() << f.path << " (" << f.o.kind << ") is in the file but not in docs/results-h5.md";
      continue;
    }
    EXPECT_EQ(f.o.kind, it->second.kind) << f.path;
    EXPECT_EQ(join(f.o.columns), join(it->second.columns)) << f.path << ": columns (file, then doc)";
    EXPECT_EQ(join(f.o.attributes), join(it->second.attributes)) << f.path << ": attributes (file, then doc)";
  }
  for (const auto& [path, o] : doc) EXPECT_TRUE(seen.count(path)) << path << " is documented but not in the file";
}

TEST_F(ResultsH5Layout, TablesAreCompressedAndPerRunTablesAreOptional) {
  std::size_t requests = 0, steps = 0;
  hsize_t request_rows = 0;
  for (const FileObject& f : file_objects(dir() / "all" / "results.h5")) {
    if (f.o.kind != "Dataset" || f.rows == 0) continue;
    EXPECT_TRUE(f.compressed) << f.path << " is not chunked, shuffled and deflated";
    requests += f.path.rfind("/requests/", 0) == 0 ? 1 : 0;
    steps += f.path.rfind("/steps/", 0) == 0 ? 1 : 0;
    if (f.path.rfind("/requests/", 0) == 0) request_rows += f.rows;
  }
  EXPECT_EQ(requests, 2u) << "one per run";
  EXPECT_EQ(steps, 2u);
  ASSERT_GT(request_rows, 0u);
  const auto all_bytes = fs::file_size(dir() / "all" / "results.h5");
  const auto summary_bytes = fs::file_size(dir() / "summary" / "results.h5");
  EXPECT_LT(summary_bytes, all_bytes);

  std::set<std::string> groups_with_children;
  for (const FileObject& f : file_objects(dir() / "summary" / "results.h5")) {
    if (f.path.rfind("/requests/", 0) == 0 || f.path.rfind("/steps/", 0) == 0) {
      ADD_FAILURE() << f.path << " written with record.requests and record.steps false";
    }
    groups_with_children.insert(f.path);
  }
  EXPECT_TRUE(groups_with_children.count("/requests")) << "the group stays, empty";
  EXPECT_TRUE(groups_with_children.count("/steps"));
  EXPECT_TRUE(groups_with_children.count("/curves/0000"));
}

TEST_F(ResultsH5Layout, RunsTableHoldsSummaryCsvNumbers) {
  H5::Exception::dontPrint();
  const H5::H5File f((dir() / "all" / "results.h5").string(), H5F_ACC_RDONLY);
  const H5::DataSet runs = f.openDataSet("runs");
  hsize_t n = 0;
  runs.getSpace().getSimpleExtentDims(&n);
  H5::CompType one(sizeof(double));
  one.insertMember("output_tok_s", 0, H5::PredType::NATIVE_DOUBLE);
  std::vector<double> h5(n);
  runs.read(h5.data(), one);
  std::ifstream csv_in(dir() / "all" / "summary.csv");
  agentsim::core::CsvReader csv(csv_in, "summary.csv");
  const auto col = csv.column("output_tok_s");
  std::size_t i = 0;
  while (csv.next()) {
    ASSERT_LT(i, h5.size());
    EXPECT_NEAR(h5[i], csv.number(col), 1e-9 * std::max(1.0, h5[i])) << "row " << i;
    ++i;
  }
  EXPECT_EQ(i, h5.size());
  ASSERT_FALSE(h5.empty());
  EXPECT_GT(h5.back(), 0);
}

}  // namespace
