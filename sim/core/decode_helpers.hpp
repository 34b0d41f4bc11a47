#pragma once
// Small typed readers shared by every layer's YAML decoders (catalog entries, experiments).
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/name_table.hpp"
#include "sim/core/yaml_node.hpp"

namespace agentsim::core {

// A quantity that must be > 0.
double positive(const YamlNode& n, Dimension d);
// An integer in [1, 1e9].
int positive_int(const YamlNode& n);

// A non-empty list of positive numbers.
std::vector<double> positive_list(const YamlNode& n);
// Optional key in (0, 1], else `fallback`.
double fraction(const YamlNode& parent, std::string_view key, double fallback);
// Optional integer key in [lo, hi], else `fallback`.
long long bounded_int(const YamlNode& parent, std::string_view key, long long fallback, long long lo,
                      long long hi);

// "unknown <what> '<name>' (did you mean '<closest>'?); valid: a, b, c".
std::string unknown_name_message(std::string_view what, const std::string& name,
                                 const std::vector<std::string>& valid);

// The value `n` names in `table`; an unknown name is an error at `n` naming the valid ones.
template <class E, std::size_t N>
E named(const YamlNode& n, std::string_view what, const NameTable<E, N>& table) {
  const std::string s = n.as_string();
  if (const auto v = from_name(table, s)) return *v;
  throw n.error(unknown_name_message(what, s, names_of(table)));
}

// Optional key naming an entry of `table`, else `fallback`.
template <class E, std::size_t N>
E named_or(const YamlNode& parent, std::string_view key, E fallback, const NameTable<E, N>& table) {
  const auto v = parent.find(key);
  return v ? named(*v, key, table) : fallback;
}

}  // namespace agentsim::core
