#pragma once
// Reading command-line option values, with errors that name the option:
// positive_number() is a CLI11 check for a finite number > 0 ("expected a finite number > 0,
// got '0'"; CLI11's PositiveNumber prints its range with the smallest double shown as 0.000000,
// so a rejected 0 reads as in range); option_quantity() parses a quantity with units for
// `option` ("--ttft-p90: '-1s' must be finite and non-negative").
#include <string>

#include <CLI/CLI.hpp>

#include "sim/core/units.hpp"

namespace agentsim::cli {

const CLI::Validator& positive_number();

// A check for a finite number >= 0 (CLI11 accepts "-5" for a double and "inf").
const CLI::Validator& non_negative_number();

// core::parse_quantity(text, d); a core::Error from it is rethrown located at `option`.
double option_quantity(const std::string& option, const std::string& text, core::Dimension d);

// An output folder option (`--out DIR`): throws "<path>: <option> names a file; expected a folder
// (new or existing)" when `path` exists and is not a folder, before anything runs.
void require_output_folder(const std::string& option, const std::string& path);

}  // namespace agentsim::cli
