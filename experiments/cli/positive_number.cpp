#include "experiments/cli/positive_number.hpp"

#include <cmath>
#include <string>

namespace agentsim::cli {

const CLI::Validator& positive_number() {
  static const CLI::Validator v(
      [](std::string& text) -> std::string {
        double value = 0;
        const bool parsed = CLI::detail::lexical_cast(text, value);
        if (parsed && std::isfinite(value) && value > 0) return {};
        return "expected a finite number > 0, got '" + text + "'";
      },
      "POSITIVE");
  return v;
}

}  // namespace agentsim::cli
