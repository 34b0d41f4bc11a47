#include "workloads/model/weight_format.hpp"

#include "sim/core/error.hpp"

namespace agentsim::wl {

std::optional<NamedFormat> parse_weight_format(std::string_view name) {
  if (name == "nvfp4") return NamedFormat{hw::DType::kFp4, 16};
  if (name == "mxfp4") return NamedFormat{hw::DType::kFp4, 32};
  const auto d = hw::parse_dtype(name);
  if (!d) return std::nullopt;
  if (*d == hw::DType::kFp4 || *d == hw::DType::kFp8) return NamedFormat{*d, std::nullopt};
  return NamedFormat{*d, 0};
}

WeightFormat reformat(std::string_view name, WeightFormat stored) {
  const auto f = parse_weight_format(name);
  if (!f) throw core::Error("unknown format '" + std::string(name) + "'; valid: " + kWeightFormatNames);
  if (f->block) return {f->dtype, *f->block};
  if (f->dtype == stored.dtype) return stored;
  if (f->dtype == hw::DType::kFp8) return {hw::DType::kFp8, 0};
  throw core::Error("fp4 over " + format_name(stored) +
                    " weights: their FP4 scaling is not known; say nvfp4 (an E4M3 scale per 16) or mxfp4 (an E8M0 "
                    "scale per 32)");
}

std::string format_name(WeightFormat f) {
  if (f.dtype == hw::DType::kFp4 && f.block == 16) return "nvfp4";
  if (f.dtype == hw::DType::kFp4 && f.block == 32) return "mxfp4";
  return std::string(hw::to_string(f.dtype));
}

std::string describe(WeightFormat f) {
  const std::string b = std::to_string(f.block);
  if (f.block <= 0 || (f.dtype != hw::DType::kFp4 && f.dtype != hw::DType::kFp8)) return format_name(f) + " (no scales)";
  if (f.dtype == hw::DType::kFp4) return format_name(f) + " (a 1-byte scale per " + b + ")";
  return format_name(f) + " (a 4-byte scale per " + b + " x " + b + " tile)";
}

double bytes_per_weight(WeightFormat f) {
  const double b = hw::bytes_per_element(f.dtype);
  if (f.block <= 0) return b;
  if (f.dtype == hw::DType::kFp4) return b + 1.0 / f.block;
  if (f.dtype == hw::DType::kFp8) return b + 4.0 / (static_cast<double>(f.block) * f.block);
  return b;
}

}  // namespace agentsim::wl
