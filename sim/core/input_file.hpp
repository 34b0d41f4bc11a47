#pragma once
// Opening a file a user named for reading. Every reader of user input opens it here, so a
// missing file and a folder given where a file is expected read the same everywhere:
// "<path>: cannot open <what>" and "<path>: cannot open <what>: it is a folder, expected a file".
#include <fstream>
#include <ios>
#include <string>
#include <string_view>

namespace agentsim::core {

// The open stream; throws core::Error naming `path` otherwise. `what`: e.g. "file", "trace file".
std::ifstream open_input(const std::string& path, std::string_view what,
                         std::ios::openmode mode = std::ios::in | std::ios::binary);

}  // namespace agentsim::core
