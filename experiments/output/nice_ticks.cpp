#include "experiments/output/nice_ticks.hpp"

#include <cmath>
#include <cstdio>
#include <string>

namespace agentsim::exp {

namespace {

// The nice step (1, 2 or 5 x 10^k) nearest to `raw` from above.
double nice_step(double raw) {
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  const double m = raw / mag;
  const double f = m <= 1.0 ? 1.0 : m <= 2.0 ? 2.0 : m <= 5.0 ? 5.0 : 10.0;
  return f * mag;
}

// Up to `decimals` decimals, trailing zeros removed.
std::string trimmed(double v, int decimals) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  std::string s = buf;
  if (s.find('.') != std::string::npos) {
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
  }
  if (s == "-0") s = "0";
  return s;
}

}  // namespace

std::vector<double> nice_ticks(double lo, double hi, int target_count) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return {0.0, 1.0};
  if (lo > hi) std::swap(lo, hi);
  if (hi - lo <= 1e-12 * std::max(1.0, std::fabs(hi))) {
    const double pad = lo == 0 ? 1.0 : std::fabs(lo) * 0.5;
    lo -= lo == 0 ? 0 : pad, hi += pad;
  }
  const double step = nice_step((hi - lo) / std::max(1, target_count));
  const double first = std::floor(lo / step + 1e-9) * step;
  std::vector<double> out;
  for (double i = 0;; ++i) {
    double t = first + i * step;
    if (std::fabs(t) < step * 1e-9) t = 0;  // no "-0" and no 1e-17 residue
    out.push_back(t);
    if (t >= hi - step * 1e-9) break;
  }
  return out;
}

std::vector<double> decade_ticks(double lo, double hi) {
  if (!(lo > 0) || !(hi > 0)) return {1.0, 10.0};
  if (lo > hi) std::swap(lo, hi);
  int a = static_cast<int>(std::floor(std::log10(lo) + 1e-9));
  int b = static_cast<int>(std::ceil(std::log10(hi) - 1e-9));
  if (b <= a) b = a + 1;
  std::vector<double> out;
  for (int k = a; k <= b; ++k) out.push_back(std::pow(10.0, k));
  return out;
}

std::string tick_label(double v, double step) {
  if (!std::isfinite(v)) return "";
  const double a = std::fabs(v);
  if (a < 1e-12 || (step > 0 && a < step * 1e-6)) return "0";
  double scale = 1;
  const char* suffix = "";
  if (a >= 1e9)
    scale = 1e9, suffix = "G";
  else if (a >= 1e6)
    scale = 1e6, suffix = "M";
  else if (a >= 1e4)
    scale = 1e3, suffix = "k";
  const double s = step / scale;
  int decimals;
  if (s > 0) {
    decimals = std::max(0, static_cast<int>(std::ceil(-std::log10(s) - 1e-9)));
  } else {
    // Two significant digits: 0.25, 0.05, 1.5, 12, 150.
    decimals = std::max(0, 1 - static_cast<int>(std::floor(std::log10(a / scale))));
  }
  return trimmed(v / scale, std::min(decimals, 6)) + suffix;
}

std::string readable_number(double v, int significant, const char* missing) {
  if (!std::isfinite(v)) return missing;
  if (v == 0) return "0";
  const double a = std::fabs(v);
  const int digits = static_cast<int>(std::floor(std::log10(a))) + 1;  // before the decimal point
  if (digits <= significant) return trimmed(v, std::min(std::max(0, significant - digits), 12));
  // Whole number, thousands grouped.
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.0f", a);
  std::string plain = buf, out;
  for (std::size_t i = 0; i < plain.size(); ++i) {
    if (i > 0 && (plain.size() - i) % 3 == 0) out += ',';
    out += plain[i];
  }
  return (v < 0 ? "-" : "") + out;
}

std::string number_cell(double v, int decimals, const char* missing) {
  if (!std::isfinite(v)) return missing;
  char buf[48];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

}  // namespace agentsim::exp
