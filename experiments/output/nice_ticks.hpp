#pragma once
// Numbers people can read: 1-2-5 "nice number" axis ticks (decades on log axes) with short
// labels, and the one formatter for every other figure a person reads (never an exponent, never "nan").
#include <string>
#include <vector>

namespace agentsim::exp {

// Ticks covering [lo, hi] with a 1, 2 or 5 x 10^k step and about `target_count` ticks;
// the first tick is <= lo and the last >= hi. A degenerate range is widened first.
std::vector<double> nice_ticks(double lo, double hi, int target_count = 5);

// The powers of ten covering [lo, hi] (both > 0): 10^floor(log10 lo) .. 10^ceil(log10 hi).
std::vector<double> decade_ticks(double lo, double hi);

// A tick label: "0", "2", "2.5", "150", "0.1", "0.01", "20k", "3M"; no exponents. With the
// axis `step`, as many decimals as the step needs (12.5 on a 0.5 step); else two significant digits.
std::string tick_label(double v, double step = 0);

// A figure for people: `significant` digits ("620", "6.23", "0.0123"), whole numbers of more
// digits than that grouped by thousands ("3,096,403"); a missing value (NaN, inf) is `missing`.
std::string readable_number(double v, int significant = 3, const char* missing = "\u2013");
// A fixed-decimals table cell ("%.1f"), or `missing` for a missing value.
std::string number_cell(double v, int decimals, const char* missing = "-");

}  // namespace agentsim::exp
