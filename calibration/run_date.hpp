#pragma once
// When a measured run was measured: an ISO 8601 calendar date, "YYYY-MM-DD", and the calendar
// quarter `agentsim validate` groups its errors by (software changes between runs: the same
// configuration measured months apart differs by more than the model's error).
#include <string>
#include <string_view>

namespace agentsim::calib {

// True for a real calendar date written YYYY-MM-DD, years 1970 to 9999 (leap years counted).
bool is_run_date(std::string_view s);

// "2026Q2" for "2026-05-18", "undated" for ""; throws core::Error for anything else.
std::string run_quarter(std::string_view run_date);

// Days from 1970-01-01 to a run date; throws core::Error unless is_run_date.
long long run_day(std::string_view run_date);

}  // namespace agentsim::calib
