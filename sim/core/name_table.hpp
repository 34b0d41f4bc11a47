#pragma once
// One name table per policy enum: (name, value) pairs read by the decoders
// (name -> value) and by printing (value -> name), so a name is spelled once.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace agentsim::core {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<std::string_view, E>, N>;

// The value named `name`, or nothing when the table lacks it.
template <class E, std::size_t N>
constexpr std::optional<E> from_name(const NameTable<E, N>& table, std::string_view name) {
  for (const auto& [n, v] : table) {
    if (n == name) return v;
  }
  return std::nullopt;
}

// The name of `value` (the first entry's name when the table lacks it).
template <class E, std::size_t N>
constexpr std::string_view name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [n, v] : table) {
    if (v == value) return n;
  }
  return table[0].first;
}

// Every name, in table order (for "valid: ..." lists and did-you-mean suggestions).
template <class E, std::size_t N>
std::vector<std::string> names_of(const NameTable<E, N>& table) {
  std::vector<std::string> out;
  out.reserve(N);
  for (const auto& entry : table) out.emplace_back(entry.first);
  return out;
}

}  // namespace agentsim::core
