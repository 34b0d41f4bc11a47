#pragma once
// Which kernel implementation a serving engine runs for each op table on an accelerator
// architecture (experiments/catalog/kernel_implementations.yaml, each choice with its source):
// e.g. vLLM's FP8 expert GEMMs on Hopper are the Triton fused MoE. ProfileEfficiency then prices
// that op from the implementation's own table ("<table>@<id>"), so two accelerators compared
// under one engine are priced from the same kernel (docs/kernel-implementations.md).
#include <map>
#include <set>
#include <string>

#include "hwmodels/accelerator.hpp"
#include "workloads/model/weight_format.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {

// Op table ("gemm_fp8", "grouped_gemm_fp8", "attention_prefill") -> implementation id.
using KernelSelection = std::map<std::string, std::string>;

// One engine's choices: per architecture; the overrides for FP8 weights with one scale per tensor
// (no block scales: another GEMM kernel); and those where the plan's expert-parallel group spans
// systems (the all-to-all then runs another library, which brings its own MoE runner).
struct EngineKernels {
  std::map<std::string, KernelSelection> by_architecture;
  std::map<std::string, KernelSelection> per_tensor_fp8;
  std::map<std::string, KernelSelection> ep_across_systems;
};

// Which FP8 op tables a run's weights reach with one scale per tensor: "gemm_fp8" where the
// model's dense weights are FP8 without block scales, "grouped_gemm_fp8" where its routed experts are.
using PerTensorFp8 = std::set<std::string>;
PerTensorFp8 per_tensor_fp8(wl::WeightFormat dense, wl::WeightFormat experts);

// `sel` with `overrides` (op table -> implementation id, e.g. serving.kernels) put over it. An
// override of another vendor than `acc`'s is an error at its location (`where`).
KernelSelection with_overrides(KernelSelection sel, const std::map<std::string, std::string>& overrides,
                               const std::map<std::string, core::SourceLocation>& where, const hw::Accelerator& acc);

// engine -> its choices, decoded from `path` (strict: an unknown engine, key, architecture,
// table or implementation, or one of another vendor, is an error naming file, line and key).
std::map<std::string, EngineKernels> load_kernel_selections(const std::string& path);

// The selection for `engine` on `acc`'s architecture from <root>/experiments/catalog/
// kernel_implementations.yaml (read once per path), with the engine's per_tensor_fp8 overrides of
// the tables in `per_tensor`, then its ep_across_systems overrides when `ep_across_systems`; empty
// where the file or the entry is absent.
KernelSelection kernel_selection(const std::string& root, const std::string& engine, const hw::Accelerator& acc,
                                 bool ep_across_systems = false, const PerTensorFp8& per_tensor = {});

}  // namespace agentsim::exp
