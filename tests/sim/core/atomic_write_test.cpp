#include "sim/core/atomic_write.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/core/error.hpp"

namespace agentsim::core {
namespace {
namespace fs = std::filesystem;

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(AtomicWrite, WritesWholeFileAndCreatesFolders) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_atomic_ok";
  fs::remove_all(dir);
  write_file_atomically((dir / "a" / "x.csv").string(), "hello\n");
  EXPECT_EQ(read(dir / "a" / "x.csv"), "hello\n");
  write_file_atomically((dir / "a" / "x.csv").string(), "second\n");
  EXPECT_EQ(read(dir / "a" / "x.csv"), "second\n");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir / "a"), fs::directory_iterator{}), 1) << "no temp file left";
  fs::remove_all(dir);
}

TEST(AtomicWrite, AFailedWriterLeavesTheOldTargetAndNoTempFile) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_atomic_fail";
  fs::remove_all(dir);
  write_file_atomically((dir / "x.h5").string(), "old");
  EXPECT_THROW(write_atomically((dir / "x.h5").string(),
                                [](const std::string& tmp) {
                                  std::ofstream(tmp) << "half a result";
                                  throw std::runtime_error("killed mid-write");
                                }),
               std::runtime_error);
  EXPECT_EQ(read(dir / "x.h5"), "old");
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1) << "the temp file is removed";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace agentsim::core
