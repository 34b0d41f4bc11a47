#include "calibration/run_date.hpp"

#include "sim/core/error.hpp"

namespace agentsim::calib {

bool is_run_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  int v[3] = {0, 0, 0};
  const std::size_t start[3] = {0, 5, 8}, len[3] = {4, 2, 2};
  for (std::size_t f = 0; f < 3; ++f) {
    for (std::size_t i = 0; i < len[f]; ++i) {
      const char c = s[start[f] + i];
      if (c < '0' || c > '9') return false;
      v[f] = v[f] * 10 + (c - '0');
    }
  }
  const int year = v[0], month = v[1], day = v[2];
  if (year < 1970 || month < 1 || month > 12 || day < 1) return false;
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  constexpr int kDays[12] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return day <= kDays[month - 1] + (month == 2 && leap ? 1 : 0);
}

std::string run_quarter(std::string_view run_date) {
  if (run_date.empty()) return "undated";
  if (!is_run_date(run_date)) {
    throw core::Error("run date '" + std::string(run_date) + "': expected a calendar date YYYY-MM-DD");
  }
  const int month = (run_date[5] - '0') * 10 + (run_date[6] - '0');
  return std::string(run_date.substr(0, 4)) + "Q" + std::to_string((month - 1) / 3 + 1);
}

}  // namespace agentsim::calib
