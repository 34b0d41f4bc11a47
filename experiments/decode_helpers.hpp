#pragma once
// Small typed readers shared by the catalog and experiment decoders.
#include "experiments/yaml_node.hpp"
#include <string>
#include <string_view>
#include <vector>

#include "hwmodels/dtype.hpp"
#include "sim/core/name_table.hpp"
#include "workloads/model_spec.hpp"

namespace agentsim::exp {

// A quantity that must be > 0.
double positive(const YamlNode& n, core::Dimension d);
// An integer in [1, 1e9].
int positive_int(const YamlNode& n);
// One of fp4, fp8, bf16, fp32.
hw::DType dtype(const YamlNode& n);

// A non-empty list of positive numbers.
std::vector<double> positive_list(const YamlNode& n);
// Optional key in (0, 1], else `fallback`.
double fraction(const YamlNode& parent, std::string_view key, double fallback);
// Optional integer key in [lo, hi], else `fallback`.
long long bounded_int(const YamlNode& parent, std::string_view key, long long fallback, long long lo,
                      long long hi);

// A drafter map (catalog `speculative`, `deployment.speculative`): `draft` in [1, 16] (default:
// the acceptance list's length), `acceptance` one probability in [0, 1] per draft position,
// `draft_layers` >= 0 (default 1), and `method` when `with_method` (else an unknown key).
wl::SpeculativeSpec decode_drafter(const YamlNode& n, bool with_method);

// "unknown <what> '<name>' (did you mean '<closest>'?); valid: a, b, c".
std::string unknown_name_message(std::string_view what, const std::string& name,
                                 const std::vector<std::string>& valid);

// The value `n` names in `table`; an unknown name is an error at `n` naming the valid ones.
template <class E, std::size_t N>
E named(const YamlNode& n, std::string_view what, const core::NameTable<E, N>& table) {
  const std::string s = n.as_string();
  if (const auto v = core::from_name(table, s)) return *v;
  throw n.error(unknown_name_message(what, s, core::names_of(table)));
}

// Optional key naming an entry of `table`, else `fallback`.
template <class E, std::size_t N>
E named_or(const YamlNode& parent, std::string_view key, E fallback, const core::NameTable<E, N>& table) {
  const auto v = parent.find(key);
  return v ? named(*v, key, table) : fallback;
}

}  // namespace agentsim::exp
