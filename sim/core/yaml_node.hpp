#pragma once
// Strict, located access to YAML: every value knows its file, line and key
// path, so each decoding error says where it is and what was expected.
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <yaml-cpp/yaml.h>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"

namespace agentsim::core {

// One documented option of a YAML section: the single declaration that both
// the strict decoder and `agentsim describe` read.
struct OptionSpec {
  std::string_view name;
  std::string_view type;           // "integer", "number", "string", "time", "list of integers", ...
  std::string_view default_value;  // "" when required
  std::string_view help;
};

class YamlNode {
 public:
  YamlNode(YAML::Node node, std::string file, std::string path);
  // Parses a whole file; a missing file or a syntax error is an Error naming it.
  static YamlNode load_file(const std::string& path);

  const std::string& file() const { return file_; }
  const std::string& path() const { return path_; }
  core::SourceLocation where() const;
  core::Error error(const std::string& what) const;

  const YAML::Node& raw() const { return node_; }  // for copying subtrees (what_if, search)
  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool has(std::string_view key) const;
  // Required child; a missing key is an error at this map's location.
  YamlNode at(std::string_view key) const;
  std::optional<YamlNode> find(std::string_view key) const;
  std::vector<YamlNode> items() const;  // elements of a sequence
  std::vector<std::string> keys() const;  // keys of a map, in file order

  std::string as_string() const;
  double as_number() const;
  long long as_integer() const;
  bool as_bool() const;
  double as_quantity(core::Dimension d) const;

  // This node must be a map whose keys all appear in `specs`; an unknown key
  // is an error at its own line with a "did you mean".
  void check_keys(std::span<const OptionSpec> specs) const;

  // Typed optional lookups with defaults.
  std::string string_or(std::string_view key, std::string fallback) const;
  double number_or(std::string_view key, double fallback) const;
  long long integer_or(std::string_view key, long long fallback) const;
  double quantity_or(std::string_view key, core::Dimension d, double fallback) const;

 private:
  YAML::Node node_;
  std::string file_;
  std::string path_;
};

}  // namespace agentsim::core
