#pragma once
// A CLI11 check for options that must be a finite number > 0. Its message names the value:
// "expected a finite number > 0, got '0'" (CLI11's PositiveNumber prints its range with the
// smallest double shown as 0.000000, so a rejected 0 reads as in range).
#include <CLI/CLI.hpp>

namespace agentsim::cli {

const CLI::Validator& positive_number();

}  // namespace agentsim::cli
