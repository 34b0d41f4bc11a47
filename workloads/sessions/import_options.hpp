#pragma once
// Options and outcome shared by every trace importer.
#include <string>

namespace agentsim::wl {

// Bounds every importer enforces, so sums over a trace cannot overflow and a
// block list cannot outgrow memory: tokens per prompt or answer, tokens per block.
inline constexpr long long kMaxTurnTokens = 1'000'000'000;
inline constexpr long long kMaxBlockSizeTokens = 1 << 20;

struct ImportOptions {
  bool skip_bad = false;  // skip malformed lines (counted) instead of failing on the first
};

struct ImportReport {
  long long lines_read = 0;     // data lines seen
  long long lines_skipped = 0;  // malformed lines skipped under skip_bad
  std::string first_error;      // message of the first skipped line
};

}  // namespace agentsim::wl
