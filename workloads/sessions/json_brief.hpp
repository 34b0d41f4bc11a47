#pragma once
// A short rendering of a JSON value for error messages: scalars as written,
// arrays and objects by kind only, so a huge or deeply nested value never
// floods a message (or recurses through the serializer).
#include <string>

#include <nlohmann/json.hpp>

namespace agentsim::wl {

inline std::string json_brief(const nlohmann::json& v) {
  if (v.is_array()) return "a list";
  if (v.is_object()) return "an object";
  std::string s = v.dump();
  return s.size() <= 40 ? s : s.substr(0, 37) + "...";
}

}  // namespace agentsim::wl
