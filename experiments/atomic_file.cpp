#include "experiments/atomic_file.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;

void write_file_atomically(const std::string& path, const std::string& content) {
  const fs::path target(path);
  std::error_code ec;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), ec);
  if (ec) throw core::Error(core::SourceLocation{target.parent_path().string(), 0, ""}, "cannot create folder: " + ec.message());
  const fs::path tmp = target.parent_path() / ("." + target.filename().string() + ".tmp." + std::to_string(::getpid()));
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw core::Error(core::SourceLocation{tmp.string(), 0, ""}, "cannot write file");
    out << content;
    out.flush();
    if (!out) {
      out.close();
      fs::remove(tmp, ec);
      throw core::Error(core::SourceLocation{tmp.string(), 0, ""}, "write failed");
    }
  }
  fs::rename(tmp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(tmp, ignored);
    throw core::Error(core::SourceLocation{path, 0, ""}, "cannot rename into place: " + ec.message());
  }
}

}  // namespace agentsim::exp
