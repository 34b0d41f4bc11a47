#pragma once
// Small typed readers shared by the catalog decoders.
#include "experiments/yaml_node.hpp"
#include <string_view>
#include <vector>

#include "hwmodels/dtype.hpp"

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

}  // namespace agentsim::exp
