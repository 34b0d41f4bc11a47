#pragma once
// Writes a whole file or nothing: the content goes to a temporary file in the
// same folder, which is then renamed over the target.
#include <string>

namespace agentsim::exp {

// Creates the parent folder if needed; throws core::Error on failure, leaving
// no partial target behind.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace agentsim::exp
