#include "sim/core/error.hpp"

namespace agentsim::core {

std::string format_error(const SourceLocation& where, const std::string& what) {
  std::string out;
  if (!where.file.empty()) {
    out += where.file;
    if (where.line > 0) out += ":" + std::to_string(where.line);
    out += ": ";
  }
  if (!where.key_path.empty()) out += where.key_path + ": ";
  out += what;
  return out;
}

Error::Error(SourceLocation where, const std::string& what)
    : std::runtime_error(format_error(where, what)), where_(std::move(where)), detail_(what) {}

Error::Error(const std::string& what) : std::runtime_error(what), detail_(what) {}

}  // namespace agentsim::core
