#pragma once
// A number as printf's "%g" writes it (6 significant digits, shortest of fixed and exponent form):
// for labels and messages, not for data files (those use CsvWriter's round-tripping format).
#include <cstdio>
#include <string>

namespace agentsim::core {

inline std::string format_g(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}

}  // namespace agentsim::core
