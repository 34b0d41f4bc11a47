#include "calibration/run_date.hpp"

#include <chrono>

#include "sim/core/error.hpp"

namespace agentsim::calib {

bool is_run_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  auto digits = [&](std::size_t at, std::size_t n) {
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
      if (s[i] < '0' || s[i] > '9') return -1;
      v = v * 10 + (s[i] - '0');
    }
    return v;
  };
  const int year = digits(0, 4), month = digits(5, 2), day = digits(8, 2);
  if (year < 1970 || month < 0 || day < 0) return false;
  // The proleptic Gregorian calendar's own check: month 1-12, the day within that month's length.
  return std::chrono::year_month_day{std::chrono::year{year}, std::chrono::month{static_cast<unsigned>(month)},
                                     std::chrono::day{static_cast<unsigned>(day)}}
      .ok();
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
