#pragma once
// A named collection with helpful lookup errors: an unknown name lists the
// valid ones and suggests the closest. Iteration is in name order.
#include <map>
#include <string>
#include <vector>

#include "sim/core/error.hpp"
#include "sim/core/suggest.hpp"

namespace agentsim::core {

template <typename T>
class Registry {
 public:
  // `kind` names the entries in errors, e.g. "system" or "model".
  explicit Registry(std::string kind) : kind_(std::move(kind)) {}

  void add(const std::string& name, T value) {
    if (!entries_.emplace(name, std::move(value)).second) {
      throw Error("duplicate " + kind_ + " '" + name + "'");
    }
  }
  bool contains(const std::string& name) const { return entries_.count(name) != 0; }
  const T& get(const std::string& name, const SourceLocation& where = {}) const {
    auto it = entries_.find(name);
    if (it == entries_.end()) throw Error(where, unknown_message(name));
    return it->second;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : entries_) out.push_back(k);
    return out;
  }
  const std::map<std::string, T>& entries() const { return entries_; }
  std::size_t size() const { return entries_.size(); }

  std::string unknown_message(const std::string& name) const {
    std::string msg = "unknown " + kind_ + " '" + name + "'";
    const std::string guess = closest_match(name, names());
    if (!guess.empty()) msg += " (did you mean '" + guess + "'?)";
    msg += "; valid: " + join_names(names());
    return msg;
  }

 private:
  std::string kind_;
  std::map<std::string, T> entries_;
};

}  // namespace agentsim::core
