#pragma once
// Importer of Mooncake FAST'25 traces (JSON Lines: timestamp in ms,
// input_length, output_length, hash_ids of 512-token blocks). Each line is a
// one-turn session arriving at its timestamp; block ids are global.
#include <istream>
#include <string>

#include "workloads/sessions/import_options.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

// Reads `in`; errors read "file:line: field: what".
Trace read_mooncake_jsonl(std::istream& in, const std::string& file, const ImportOptions& opt = {},
                          ImportReport* report = nullptr);
Trace load_mooncake_jsonl(const std::string& path, const ImportOptions& opt = {}, ImportReport* report = nullptr);

}  // namespace agentsim::wl
