#pragma once
// A stored weight format: the math dtype and how many elements share one scale. Names: bf16 and
// fp32 (no scales), fp8 and fp4 (scales as the model card's block_scale says), nvfp4 (FP4 with an
// E4M3 scale per 16 elements) and mxfp4 (FP4 with an E8M0 scale per 32).
#include <optional>
#include <string>
#include <string_view>

#include "hwmodels/dtype.hpp"

namespace agentsim::wl {

struct WeightFormat {
  hw::DType dtype = hw::DType::kBf16;
  int block = 0;  // elements per scale (FP4: 1-D blocks, FP8: block x block tiles); 0 = no scales
};

// A name as written: nvfp4 and mxfp4 name their block (bf16 and fp32 have none); fp8 and fp4 do not.
struct NamedFormat {
  hw::DType dtype = hw::DType::kBf16;
  std::optional<int> block;
};

// nullopt for a name that is no weight format.
std::optional<NamedFormat> parse_weight_format(std::string_view name);
inline constexpr const char* kWeightFormatNames = "bf16, fp32, fp8, fp4, nvfp4, mxfp4";

// `name` given over a tensor group stored as `stored` (explain --weights, a measured row's
// precision): a named block replaces the stored one; fp8 keeps an FP8 group's tiles (else one
// scale per tensor, 0); a bare fp4 keeps an FP4 group's block and is an error over any other
// format, whose FP4 scaling it cannot know. Throws core::Error saying why (no location).
WeightFormat reformat(std::string_view name, WeightFormat stored);

// nvfp4 / mxfp4 for FP4 in 16- / 32-element blocks, else the dtype's name.
std::string format_name(WeightFormat f);
// The name and its scales in words, e.g. "nvfp4 (a 1-byte scale per 16)", "fp8 (a 4-byte scale per
// 128 x 128 tile)", "bf16 (no scales)".
std::string describe(WeightFormat f);

// Storage bytes per weight, scales included (1-byte FP4 block scales, 4-byte FP8 tile scales).
double bytes_per_weight(WeightFormat f);

}  // namespace agentsim::wl
