#include "sim/core/decode_helpers.hpp"

#include <array>
#include <span>
#include <string>

#include "sim/core/suggest.hpp"

namespace agentsim::core {

double positive(const YamlNode& n, Dimension d) {
  const double v = n.as_quantity(d);
  if (!(v > 0)) throw n.error("expected a positive value");
  return v;
}

int positive_int(const YamlNode& n) {
  const long long v = n.as_integer();
  if (v <= 0 || v > 1'000'000'000) throw n.error("expected a positive integer");
  return static_cast<int>(v);
}

std::vector<double> positive_list(const YamlNode& n) {
  std::vector<double> v;
  for (const auto& item : n.items()) {
    const double x = item.as_number();
    if (!(x > 0)) throw item.error("expected a positive number");
    v.push_back(x);
  }
  if (v.empty()) throw n.error("expected at least one value");
  return v;
}

double fraction(const YamlNode& parent, std::string_view key, double fallback) {
  if (!parent.has(key)) return fallback;
  const YamlNode n = parent.at(key);
  const double v = n.as_number();
  if (!(v > 0 && v <= 1)) throw n.error("expected a number in (0, 1]");
  return v;
}

long long bounded_int(const YamlNode& parent, std::string_view key, long long fallback, long long lo,
                      long long hi) {
  if (!parent.has(key)) return fallback;
  const YamlNode n = parent.at(key);
  const long long v = n.as_integer();
  if (v < lo || v > hi) {
    throw n.error("expected an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  }
  return v;
}

std::string unknown_name_message(std::string_view what, const std::string& name,
                                 const std::vector<std::string>& valid) {
  std::string msg = "unknown " + std::string(what) + " '" + name + "'";
  const std::string guess = core::closest_match(name, valid);
  if (!guess.empty()) msg += " (did you mean '" + guess + "'?)";
  return msg + "; valid: " + core::join_names(valid);
}

}  // namespace agentsim::core
