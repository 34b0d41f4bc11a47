#include "sim/core/atomic_write.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

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

// Two sweep threads probing the same point both write its kept run: each must rename a whole
// file of its own (a shared temp name made the second rename fail with "No such file").
TEST(AtomicWrite, ConcurrentWritersOfOneTargetAllSucceed) {
  const fs::path dir = fs::temp_directory_path() / "agentsim_atomic_race";
  fs::remove_all(dir);
  const std::string target = (dir / "run.bin").string();
  const std::string a(100000, 'a'), b(100000, 'b');
  std::vector<std::thread> writers;
  writers.reserve(8);
  int failures = 0;
  std::vector<int> failed(8, 0);
  for (int t = 0; t < 8; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        try {
          write_file_atomically(target, t % 2 == 0 ? a : b);
        } catch (const Error&) {
          ++failed[static_cast<std::size_t>(t)];
        }
      }
    });
  }
  for (std::thread& w : writers) w.join();
  for (int f : failed) failures += f;
  EXPECT_EQ(failures, 0);
  const std::string got = read(target);
  EXPECT_TRUE(got == a || got == b) << "the target is one writer's whole file";
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator{}), 1) << "no temp file left";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace agentsim::core
