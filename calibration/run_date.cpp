#include "calibration/run_date.hpp"

#include <chrono>

#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {

// The decimal number in s[at, at + n), or -1 when a character is not a digit.
int digits(std::string_view s, std::size_t at, std::size_t n) {
  int v = 0;
  for (std::size_t i = at; i < at + n; ++i) {
    if (s[i] < '0' || s[i] > '9') return -1;
    v = v * 10 + (s[i] - '0');
  }
  return v;
}

// The proleptic Gregorian date written in s (not checked: is_run_date checks it).
std::chrono::year_month_day date_of(std::string_view s) {
  return {std::chrono::year{digits(s, 0, 4)}, std::chrono::month{static_cast<unsigned>(digits(s, 5, 2))},
          std::chrono::day{static_cast<unsigned>(digits(s, 8, 2))}};
}

void check(std::string_view run_date) {
  if (!is_run_date(run_date)) {
    throw core::Error("run date '" + std::string(run_date) + "': expected a calendar date YYYY-MM-DD");
  }
}

}  // namespace

bool is_run_date(std::string_view s) {
  if (s.size() != 10 || s[4] != '-' || s[7] != '-') return false;
  const int year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
  if (year < 1970 || month < 0 || day < 0) return false;
  // The calendar's own check: month 1-12, the day within that month's length.
  return date_of(s).ok();
}

std::string run_quarter(std::string_view run_date) {
  if (run_date.empty()) return "undated";
  check(run_date);
  const int month = digits(run_date, 5, 2);
  return std::string(run_date.substr(0, 4)) + "Q" + std::to_string((month - 1) / 3 + 1);
}

long long run_day(std::string_view run_date) {
  check(run_date);
  return std::chrono::sys_days{date_of(run_date)}.time_since_epoch().count();
}

}  // namespace agentsim::calib
