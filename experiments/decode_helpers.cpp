#include "experiments/decode_helpers.hpp"

#include <array>
#include <span>
#include <string>

#include "sim/core/suggest.hpp"

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

wl::SpeculativeSpec decode_drafter(const YamlNode& n, bool with_method) {
  static constexpr std::array kKeys = {
      OptionSpec{"draft", "integer", "acceptance length", "tokens drafted per step (k)"},
      OptionSpec{"acceptance", "list of numbers", "", "P(draft i accepted | drafts before it accepted), one per position"},
      OptionSpec{"draft_layers", "number", "1", "draft cost per draft token, in target-model layers"},
      OptionSpec{"method", "string", "", "drafter kind (informational): mtp, dspark, eagle, ..."},
  };
  n.check_keys(with_method ? std::span<const OptionSpec>(kKeys) : std::span<const OptionSpec>(kKeys).first(3));
  wl::SpeculativeSpec s;
  if (with_method) s.method = n.at("method").as_string();
  const YamlNode acc = n.at("acceptance");
  const std::vector<YamlNode> items = acc.items();
  for (const YamlNode& x : items) {
    const double p = x.as_number();
    if (!(p >= 0 && p <= 1)) throw x.error("expected a probability in [0, 1]");
    s.acceptance.push_back(p);
  }
  const long long k = bounded_int(n, "draft", static_cast<long long>(items.size()), 1, 16);
  if (k != static_cast<long long>(items.size())) {
    throw acc.error("expected " + std::to_string(k) + " probabilities (one per draft position), found " +
                    std::to_string(items.size()));
  }
  s.draft_tokens = static_cast<int>(k);
  if (auto v = n.find("draft_layers")) {
    s.draft_layers = v->as_number();
    if (!(s.draft_layers >= 0 && s.draft_layers <= 64)) throw v->error("expected a number in [0, 64]");
  }
  return s;
}

std::string unknown_name_message(std::string_view what, const std::string& name,
                                 const std::vector<std::string>& valid) {
  std::string msg = "unknown " + std::string(what) + " '" + name + "'";
  const std::string guess = core::closest_match(name, valid);
  if (!guess.empty()) msg += " (did you mean '" + guess + "'?)";
  return msg + "; valid: " + core::join_names(valid);
}

}  // namespace agentsim::exp
