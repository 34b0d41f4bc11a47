#include "hwmodels/dtype.hpp"

namespace agentsim::hw {

double bytes_per_element(DType d) {
  switch (d) {
    case DType::kFp4: return 0.5;
    case DType::kFp8: return 1.0;
    case DType::kBf16: return 2.0;
    case DType::kFp32: return 4.0;
  }
  return 0.0;
}

std::string_view to_string(DType d) {
  switch (d) {
    case DType::kFp4: return "fp4";
    case DType::kFp8: return "fp8";
    case DType::kBf16: return "bf16";
    case DType::kFp32: return "fp32";
  }
  return "?";
}

std::optional<DType> parse_dtype(std::string_view s) {
  if (s == "fp4") return DType::kFp4;
  if (s == "fp8") return DType::kFp8;
  if (s == "bf16") return DType::kBf16;
  if (s == "fp32") return DType::kFp32;
  return std::nullopt;
}

}  // namespace agentsim::hw
