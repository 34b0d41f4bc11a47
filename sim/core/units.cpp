#include "sim/core/units.hpp"

#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string>

#include "sim/core/error.hpp"

namespace agentsim::core {
namespace {

struct Unit {
  std::string_view symbol;
  Dimension dim;
  double factor;
};

constexpr std::array kUnits = {
    Unit{"s", Dimension::kTime, 1.0},         Unit{"ms", Dimension::kTime, 1e-3},
    Unit{"us", Dimension::kTime, 1e-6},       Unit{"ns", Dimension::kTime, 1e-9},
    Unit{"min", Dimension::kTime, 60.0},      Unit{"h", Dimension::kTime, 3600.0},
    Unit{"B", Dimension::kBytes, 1.0},        Unit{"KB", Dimension::kBytes, 1e3},
    Unit{"kB", Dimension::kBytes, 1e3},       Unit{"MB", Dimension::kBytes, 1e6},
    Unit{"GB", Dimension::kBytes, 1e9},       Unit{"TB", Dimension::kBytes, 1e12},
    Unit{"PB", Dimension::kBytes, 1e15},      Unit{"KiB", Dimension::kBytes, 1024.0},
    Unit{"MiB", Dimension::kBytes, 1048576.0}, Unit{"GiB", Dimension::kBytes, 1073741824.0},
    Unit{"TiB", Dimension::kBytes, 1099511627776.0},
    Unit{"B/s", Dimension::kBandwidth, 1.0},  Unit{"KB/s", Dimension::kBandwidth, 1e3},
    Unit{"MB/s", Dimension::kBandwidth, 1e6}, Unit{"GB/s", Dimension::kBandwidth, 1e9},
    Unit{"TB/s", Dimension::kBandwidth, 1e12}, Unit{"GiB/s", Dimension::kBandwidth, 1073741824.0},
    Unit{"Mb/s", Dimension::kBandwidth, 1e6 / 8}, Unit{"Gb/s", Dimension::kBandwidth, 1e9 / 8},
    Unit{"Tb/s", Dimension::kBandwidth, 1e12 / 8},
    Unit{"W", Dimension::kPower, 1.0},        Unit{"kW", Dimension::kPower, 1e3},
    Unit{"MW", Dimension::kPower, 1e6},
    Unit{"FLOP", Dimension::kFlops, 1.0},     Unit{"GFLOP", Dimension::kFlops, 1e9},
    Unit{"TFLOP", Dimension::kFlops, 1e12},   Unit{"PFLOP", Dimension::kFlops, 1e15},
    Unit{"FLOP/s", Dimension::kFlopRate, 1.0}, Unit{"GFLOP/s", Dimension::kFlopRate, 1e9},
    Unit{"TFLOP/s", Dimension::kFlopRate, 1e12}, Unit{"PFLOP/s", Dimension::kFlopRate, 1e15},
};

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

}  // namespace

std::string describe(Dimension d) {
  switch (d) {
    case Dimension::kTime: return "a time such as \"2us\", \"1.5ms\", \"30s\"";
    case Dimension::kBytes: return "a size such as \"141GB\", \"64KiB\"";
    case Dimension::kBandwidth: return "a bandwidth such as \"4.8TB/s\", \"400Gb/s\"";
    case Dimension::kPower: return "a power such as \"700W\", \"1.4kW\"";
    case Dimension::kFlops: return "a FLOP count such as \"2.5TFLOP\"";
    case Dimension::kFlopRate: return "a FLOP rate such as \"989TFLOP/s\"";
  }
  return "a quantity";
}

double parse_quantity(std::string_view text, Dimension d) {
  const std::string_view s = trim(text);
  double value = 0.0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
  if (ec != std::errc{} || ptr == s.data()) {
    throw Error("cannot read '" + std::string(text) + "': expected " + describe(d));
  }
  const std::string_view unit = trim(std::string_view(ptr, static_cast<std::size_t>(s.data() + s.size() - ptr)));
  if (unit.empty()) {
    throw Error("'" + std::string(text) + "' has no unit: expected " + describe(d));
  }
  if (!std::isfinite(value) || value < 0.0) {
    throw Error("'" + std::string(text) + "' must be finite and non-negative");
  }
  for (const Unit& u : kUnits) {
    if (u.symbol == unit) {
      if (u.dim != d) {
        throw Error("unit '" + std::string(unit) + "' in '" + std::string(text) +
                    "' is the wrong kind: expected " + describe(d));
      }
      const double si = value * u.factor;
      // A finite number times a prefix can still overflow (e.g. "1e308PB").
      if (!std::isfinite(si)) throw Error("'" + std::string(text) + "' is too large: expected " + describe(d));
      return si;
    }
  }
  throw Error("unknown unit '" + std::string(unit) + "' in '" + std::string(text) + "': expected " +
              describe(d));
}

std::string format_quantity(double v, Dimension d) {
  std::string_view base;
  switch (d) {
    case Dimension::kTime: {
      char buf[64];
      if (v >= 1.0 || v == 0.0) std::snprintf(buf, sizeof buf, "%.4g s", v);
      else if (v >= 1e-3) std::snprintf(buf, sizeof buf, "%.4g ms", v * 1e3);
      else if (v >= 1e-6) std::snprintf(buf, sizeof buf, "%.4g us", v * 1e6);
      else std::snprintf(buf, sizeof buf, "%.4g ns", v * 1e9);
      return buf;
    }
    case Dimension::kBytes: base = "B"; break;
    case Dimension::kBandwidth: base = "B/s"; break;
    case Dimension::kPower: base = "W"; break;
    case Dimension::kFlops: base = "FLOP"; break;
    case Dimension::kFlopRate: base = "FLOP/s"; break;
  }
  static constexpr std::array<std::pair<double, const char*>, 5> kPrefix = {
      {{1e15, "P"}, {1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}}};
  char buf[64];
  for (const auto& [f, p] : kPrefix) {
    if (v >= f) {
      std::snprintf(buf, sizeof buf, "%.4g %s%.*s", v / f, p, static_cast<int>(base.size()), base.data());
      return buf;
    }
  }
  std::snprintf(buf, sizeof buf, "%.4g %.*s", v, static_cast<int>(base.size()), base.data());
  return buf;
}

}  // namespace agentsim::core
