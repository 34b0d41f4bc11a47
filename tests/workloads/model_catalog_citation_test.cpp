// Every data value in the model catalog cites its source, says how it is
// derived from cited values, or is marked as an assumption.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>

namespace {
namespace fs = std::filesystem;

TEST(ModelCatalog, EveryDataLineCitesASourceOrSaysAssumed) {
  const std::regex scalar(R"(^\s*([A-Za-z0-9_]+):\s*([^#\s][^#]*?)\s*(#(.*))?$)");
  const std::set<std::string> identifiers{"name", "display_name"};
  int data_lines = 0;
  for (const auto& e : fs::directory_iterator(fs::path(AGENTSIM_SOURCE_DIR) / "workloads/catalog/models")) {
    std::ifstream in(e.path());
    std::string line;
    int n = 0;
    while (std::getline(in, line)) {
      ++n;
      std::smatch m;
      if (!std::regex_match(line, m, scalar) || identifiers.count(m[1].str())) continue;
      ++data_lines;
      const std::string comment = m[4].str();
      const bool ok = comment.find("source") != std::string::npos || comment.find("derived") != std::string::npos ||
                      comment.find("assumed") != std::string::npos;
      EXPECT_TRUE(ok) << e.path().string() << ":" << n << ": " << line;
    }
  }
  EXPECT_GT(data_lines, 13 * 15) << "13 models of 15+ data lines each";
}

}  // namespace
