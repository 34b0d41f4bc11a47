#pragma once
// The error type of every layer: a message plus where in the user's input it
// came from (file, 1-based line, key path such as "workload.concurrency[2]").
#include <stdexcept>
#include <string>

namespace agentsim::core {

struct SourceLocation {
  std::string file;      // empty when the error is not tied to an input file
  int line = 0;          // 1-based; 0 when unknown
  std::string key_path;  // dotted path of the offending key; empty when unknown
};

class Error : public std::runtime_error {
 public:
  Error(SourceLocation where, const std::string& what);
  explicit Error(const std::string& what);

  const SourceLocation& where() const { return where_; }
  // The bare message without the location prefix.
  const std::string& detail() const { return detail_; }

 private:
  SourceLocation where_;
  std::string detail_;
};

// "file:line: key: what" with the absent parts left out.
std::string format_error(const SourceLocation& where, const std::string& what);

}  // namespace agentsim::core
