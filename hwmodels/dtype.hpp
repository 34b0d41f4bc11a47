#pragma once
// Numeric formats of weights, KV cache and math, and their storage size.
#include <optional>
#include <string>
#include <string_view>

namespace agentsim::hw {

enum class DType { kFp4, kFp8, kBf16, kFp32 };

// Storage bytes per element, scales excluded (FP4 = 0.5).
double bytes_per_element(DType d);
std::string_view to_string(DType d);
// "fp4" | "fp8" | "bf16" | "fp32"; nullopt otherwise.
std::optional<DType> parse_dtype(std::string_view s);

}  // namespace agentsim::hw
