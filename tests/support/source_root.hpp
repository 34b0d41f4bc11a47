#pragma once
// The source tree the tests were built from (AGENTSIM_SOURCE_DIR) and the sample trace most
// end-to-end tests replay; one definition, so every test program agrees on both.
#include <string>

namespace agentsim::test_support {

inline const std::string kRoot = AGENTSIM_SOURCE_DIR;
inline const std::string kTrace = kRoot + "/workloads/traces/claude-code-sample/requests.csv";

}  // namespace agentsim::test_support
