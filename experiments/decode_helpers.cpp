#include "experiments/decode_helpers.hpp"

namespace agentsim::exp {
using core::Dimension;

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

hw::DType dtype(const YamlNode& n) {
  const auto d = hw::parse_dtype(n.as_string());
  if (!d) throw n.error("unknown dtype '" + n.as_string() + "'; valid: fp4, fp8, bf16, fp32");
  return *d;
}

}  // namespace agentsim::exp
