#include "sim/core/input_file.hpp"

#include <filesystem>

#include "sim/core/error.hpp"

namespace agentsim::core {

std::ifstream open_input(const std::string& path, std::string_view what, std::ios::openmode mode) {
  std::error_code ec;
  // An ifstream opens a folder on Linux and then reads nothing, which a parser reports as an
  // empty or malformed file.
  if (std::filesystem::is_directory(path, ec)) {
    throw Error(SourceLocation{path, 0, ""}, "cannot open " + std::string(what) + ": it is a folder, expected a file");
  }
  std::ifstream in(path, mode);
  if (!in) throw Error(SourceLocation{path, 0, ""}, "cannot open " + std::string(what));
  return in;
}

}  // namespace agentsim::core
