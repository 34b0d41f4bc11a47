#pragma once
// "Did you mean" support for registries and strict decoders.
#include <string>
#include <string_view>
#include <vector>

namespace agentsim::core {

// Levenshtein distance between two strings.
std::size_t edit_distance(std::string_view a, std::string_view b);
// The candidate closest to `word` if it is plausibly a typo of it, else "".
std::string closest_match(std::string_view word, const std::vector<std::string>& candidates);
// Comma-separated list of names, for error messages.
std::string join_names(const std::vector<std::string>& names);

}  // namespace agentsim::core
