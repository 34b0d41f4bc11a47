#include "experiments/cli/option_values.hpp"

#include <cmath>
#include <filesystem>
#include <string>

#include "sim/core/error.hpp"

namespace agentsim::cli {
namespace {

CLI::Validator number_check(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& text) -> std::string {
        double value = 0;
        const bool parsed = CLI::detail::lexical_cast(text, value);
        if (parsed && std::isfinite(value) && (value > 0 || (allow_zero && value == 0))) return {};
        return std::string("expected a finite number ") + (allow_zero ? ">= 0" : "> 0") + ", got '" + text + "'";
      },
      allow_zero ? "NONNEGATIVE" : "POSITIVE");
}

}  // namespace

const CLI::Validator& positive_number() {
  static const CLI::Validator v = number_check(false);
  return v;
}

const CLI::Validator& non_negative_number() {
  static const CLI::Validator v = number_check(true);
  return v;
}

double option_quantity(const std::string& option, const std::string& text, core::Dimension d) {
  try {
    return core::parse_quantity(text, d);
  } catch (const core::Error& err) {
    throw core::Error(core::SourceLocation{option, 0, ""}, err.detail());
  }
}

void require_output_folder(const std::string& option, const std::string& path) {
  std::error_code ec;
  if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec)) {
    throw core::Error(core::SourceLocation{path, 0, ""}, option + " names a file; expected a folder (new or existing)");
  }
}

}  // namespace agentsim::cli
