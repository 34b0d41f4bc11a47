#include "sim/core/yaml_node.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>

#include "sim/core/input_file.hpp"
#include "sim/core/suggest.hpp"

namespace agentsim::core {

// YAML::Node has no move constructor (std::move would copy anyway); the parameter stays by value
// as declared in yaml_node.hpp.
// NOLINTNEXTLINE(performance-unnecessary-value-param)
YamlNode::YamlNode(YAML::Node node, std::string file, std::string path)
    : node_(node), file_(std::move(file)), path_(std::move(path)) {}

YamlNode YamlNode::load_file(const std::string& path) {
  std::ifstream in = core::open_input(path, "file", std::ios::in);
  try {
    YAML::Node root = YAML::Load(in);
    if (!root.IsMap()) {
      throw core::Error(core::SourceLocation{path, 1, ""}, "expected a YAML mapping at the top level");
    }
    return YamlNode(root, path, "");
  } catch (const YAML::Exception& e) {
    throw core::Error(core::SourceLocation{path, e.mark.line + 1, ""}, "YAML syntax error: " + e.msg);
  }
}

core::SourceLocation YamlNode::where() const {
  const int line = node_.IsDefined() && node_.Mark().line >= 0 ? node_.Mark().line + 1 : 0;
  return core::SourceLocation{file_, line, path_};
}

core::Error YamlNode::error(const std::string& what) const { return core::Error(where(), what); }

bool YamlNode::has(std::string_view key) const {
  return node_.IsMap() && node_[std::string(key)].IsDefined() && !node_[std::string(key)].IsNull();
}

YamlNode YamlNode::at(std::string_view key) const {
  if (!node_.IsMap()) throw error("expected a mapping");
  const std::string k(key);
  YAML::Node child = node_[k];
  const std::string child_path = path_.empty() ? k : path_ + "." + k;
  if (!child.IsDefined() || child.IsNull()) {
    throw core::Error(core::SourceLocation{file_, where().line, child_path}, "missing required key");
  }
  return YamlNode(child, file_, child_path);
}

std::optional<YamlNode> YamlNode::find(std::string_view key) const {
  if (!has(key)) return std::nullopt;
  return at(key);
}

std::vector<YamlNode> YamlNode::items() const {
  if (!node_.IsSequence()) throw error("expected a list");
  std::vector<YamlNode> out;
  for (std::size_t i = 0; i < node_.size(); ++i) {
    out.emplace_back(node_[i], file_, path_ + "[" + std::to_string(i) + "]");
  }
  return out;
}

std::vector<std::string> YamlNode::keys() const {
  if (!node_.IsMap()) throw error("expected a mapping");
  std::vector<std::string> out;
  for (const auto& kv : node_) out.push_back(kv.first.as<std::string>());
  return out;
}

std::string YamlNode::as_string() const {
  if (!node_.IsScalar()) throw error("expected a string");
  return node_.Scalar();
}

double YamlNode::as_number() const {
  if (!node_.IsScalar()) throw error("expected a number");
  const std::string& s = node_.Scalar();
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || !std::isfinite(v)) {
    throw error("expected a number, found '" + s + "'");
  }
  return v;
}

long long YamlNode::as_integer() const {
  if (!node_.IsScalar()) throw error("expected an integer");
  const std::string& s = node_.Scalar();
  long long v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) {
    throw error("expected an integer, found '" + s + "'");
  }
  return v;
}

bool YamlNode::as_bool() const {
  if (!node_.IsScalar()) throw error("expected true or false");
  const std::string& s = node_.Scalar();
  if (s == "true") return true;
  if (s == "false") return false;
  throw error("expected true or false, found '" + s + "'");
}

double YamlNode::as_quantity(core::Dimension d) const {
  if (!node_.IsScalar()) throw error("expected " + core::describe(d));
  double v = 0;
  try {
    v = core::parse_quantity(node_.Scalar(), d);
  } catch (const core::Error& e) {
    throw error(e.detail());
  }
  // "1e308h" parses as a finite number but overflows once scaled to SI.
  if (!std::isfinite(v)) throw error("'" + node_.Scalar() + "' is too large: expected " + core::describe(d));
  return v;
}

void YamlNode::check_keys(std::span<const OptionSpec> specs) const {
  if (!node_.IsMap()) throw error("expected a mapping");
  std::vector<std::string> valid;
  for (const auto& s : specs) valid.emplace_back(s.name);
  std::vector<std::string> seen;
  for (const auto& kv : node_) {
    const std::string key = kv.first.as<std::string>();
    const int key_line = kv.first.Mark().line >= 0 ? kv.first.Mark().line + 1 : where().line;
    const std::string key_path = path_.empty() ? key : path_ + "." + key;
    // yaml-cpp keeps the first of two equal keys: the second would be ignored silently.
    if (std::find(seen.begin(), seen.end(), key) != seen.end()) {
      throw core::Error(core::SourceLocation{file_, key_line, key_path}, "duplicate key: expected each key once");
    }
    seen.push_back(key);
    bool known = false;
    for (const auto& v : valid) known = known || v == key;
    if (known) continue;
    std::string msg = "unknown key";
    const std::string guess = core::closest_match(key, valid);
    if (!guess.empty()) msg += " (did you mean '" + guess + "'?)";
    msg += "; valid keys: " + core::join_names(valid);
    throw core::Error(core::SourceLocation{file_, key_line, key_path}, msg);
  }
}

std::string YamlNode::string_or(std::string_view key, std::string fallback) const {
  return has(key) ? at(key).as_string() : std::move(fallback);
}
double YamlNode::number_or(std::string_view key, double fallback) const {
  return has(key) ? at(key).as_number() : fallback;
}
long long YamlNode::integer_or(std::string_view key, long long fallback) const {
  return has(key) ? at(key).as_integer() : fallback;
}
double YamlNode::quantity_or(std::string_view key, core::Dimension d, double fallback) const {
  return has(key) ? at(key).as_quantity(d) : fallback;
}

}  // namespace agentsim::core
