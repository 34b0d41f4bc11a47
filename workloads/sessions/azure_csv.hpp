#pragma once
// Importer of the Azure LLM inference trace 2023 (TIMESTAMP, ContextTokens,
// GeneratedTokens): each row is a one-turn session arriving at its timestamp
// (seconds after the first row). No prefix information.
#include <istream>
#include <string>

#include "workloads/sessions/import_options.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::wl {

Trace read_azure_csv(std::istream& in, const std::string& file, const ImportOptions& opt = {},
                     ImportReport* report = nullptr);
Trace load_azure_csv(const std::string& path, const ImportOptions& opt = {}, ImportReport* report = nullptr);

// Seconds since 1970-01-01 of "YYYY-MM-DD hh:mm:ss[.fraction]"; false if malformed.
bool parse_timestamp_s(const std::string& text, double& out_s);

}  // namespace agentsim::wl
