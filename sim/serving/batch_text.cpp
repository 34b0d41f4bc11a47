#include "sim/serving/batch_text.hpp"

#include <charconv>
#include <string>

#include "sim/core/error.hpp"

namespace agentsim::serving {

namespace {

// `what`: the field, e.g. "sequence count" or "context".
long long number(std::string_view s, std::string_view item, std::string_view text, std::string_view what) {
  long long v = 0;
  const auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc() || ptr != s.data() + s.size() || v < 0 || v > 100'000'000) {
    throw core::Error("batch '" + std::string(text) + "': '" + std::string(item) + "' has a bad " + std::string(what) +
                      " '" + std::string(s) + "' (expected an integer 0..100000000, e.g. decode=64@32768,prefill=1x4096@0)");
  }
  return v;
}

}  // namespace

StepBatch parse_step_batch(std::string_view text) {
  StepBatch b;
  size_t start = 0;
  while (start < text.size()) {
    const size_t comma = text.find(',', start);
    const std::string_view item = text.substr(start, comma == std::string_view::npos ? text.npos : comma - start);
    const size_t eq = item.find('='), at = item.find('@');
    if (eq == std::string_view::npos || at == std::string_view::npos || at < eq) {
      throw core::Error("batch '" + std::string(text) + "': '" + std::string(item) +
                        "' is not decode=N@CONTEXT or prefill=NxTOKENS@CACHED");
    }
    const std::string_view key = item.substr(0, eq), lhs = item.substr(eq + 1, at - eq - 1), rhs = item.substr(at + 1);
    if (key == "decode") {
      const long long n = number(lhs, item, text, "sequence count"), ctx = number(rhs, item, text, "context");
      for (long long i = 0; i < n; ++i) b.decodes.push_back(DecodeItem{ctx});
    } else if (key == "prefill") {
      const size_t x = lhs.find('x');
      if (x == std::string_view::npos) {
        throw core::Error("batch '" + std::string(text) + "': '" + std::string(item) + "' is not prefill=NxTOKENS@CACHED");
      }
      const long long n = number(lhs.substr(0, x), item, text, "chunk count"),
                      tokens = number(lhs.substr(x + 1), item, text, "token count");
      const long long cached = number(rhs, item, text, "cached-token count");
      if (tokens < 1) throw core::Error("batch '" + std::string(text) + "': a prefill chunk needs at least one token");
      for (long long i = 0; i < n; ++i) b.prefills.push_back(PrefillChunk{tokens, cached, true});
    } else {
      throw core::Error("batch '" + std::string(text) + "': unknown item '" + std::string(key) + "'; valid: decode, prefill");
    }
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  if (b.empty()) throw core::Error("batch '" + std::string(text) + "' is empty (expected e.g. decode=64@32768)");
  return b;
}

}  // namespace agentsim::serving
