#pragma once
// Writes a whole file or nothing: `write` fills a temporary file in the target's
// folder, which is then renamed over the target. If `write` throws, the
// temporary file is removed and the exception propagates; the target is untouched.
// Concurrent writers of one target (threads or processes) each rename a whole file; the last wins.
#include <functional>
#include <string>

namespace agentsim::core {

// Creates the parent folder if needed; a failed rename is a core::Error naming `path`.
void write_atomically(const std::string& path, const std::function<void(const std::string& tmp_path)>& write);

// The common case: the whole content is a string.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace agentsim::core
