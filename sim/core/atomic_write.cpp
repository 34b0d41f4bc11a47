#include "sim/core/atomic_write.hpp"

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"

namespace agentsim::core {
namespace fs = std::filesystem;

void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write) {
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) {
    throw Error(SourceLocation{target.parent_path().string(), 0, ""}, "cannot create folder: " + ec.message());
  }
  // Dot-prefixed and unique per call (process id, then a per-process count), so concurrent
  // writers of one target (MPI ranks, or threads of a sweep probing the same point) never share one.
  static std::atomic<unsigned long long> calls{0};
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp." +
                                               std::to_string(::getpid()) + "." + std::to_string(calls.fetch_add(1)));
  try {
    write(tmp.string());
  } catch (...) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw;
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw Error(SourceLocation{path, 0, ""}, "cannot rename into place: " + ec.message());
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_atomically(path, [&](const std::string& tmp) {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw Error(SourceLocation{tmp, 0, ""}, "cannot write file");
    out << content;
    out.flush();
    if (!out) throw Error(SourceLocation{tmp, 0, ""}, "write failed");
  });
}

}  // namespace agentsim::core
