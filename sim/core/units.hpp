#pragma once
// Unit strings ("4.8TB/s", "141GB", "2us", "1.4kW", "989TFLOP/s") parsed once, at
// input, into SI values: seconds, bytes, bytes/s, watts, FLOP, FLOP/s.
// Decimal prefixes are powers of 1000; binary ones (KiB, GiB) of 1024;
// "b" (lower-case, in "Gb/s") is bits.
#include <string>
#include <string_view>

namespace agentsim::core {

enum class Dimension { kTime, kBytes, kBandwidth, kPower, kFlops, kFlopRate };

// Name of the dimension and examples of valid units, for error messages.
std::string describe(Dimension d);

// Parses "<number><unit>" (space allowed between) into the SI value of the
// dimension. Throws core::Error with a message saying what was expected.
// A bare number is rejected: units are mandatory at interfaces.
double parse_quantity(std::string_view text, Dimension d);

// Formats an SI value with a readable prefix, e.g. 4.8e12 B/s -> "4.8 TB/s".
std::string format_quantity(double value_si, Dimension d);

}  // namespace agentsim::core
