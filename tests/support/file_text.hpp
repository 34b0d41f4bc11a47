#pragma once
// A whole file's bytes, for tests that read a fixture or an output back.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace agentsim::test_support {

// "" when the file cannot be read.
inline std::string slurp(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace agentsim::test_support
