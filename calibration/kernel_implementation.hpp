#pragma once
// The kernel implementations calibration tables are keyed by: which library's kernel a
// measured row timed (DeepGEMM, the Triton fused MoE, cuBLAS, aiter, NCCL ...), read from the
// row's library / kernel / tool text or the device-run script that wrote it. A profile holds,
// besides each op's best-of-sources table, one table per implementation ("<table>@<id>"),
// measured or derived from the same implementation on a sibling (docs/kernel-implementations.md).
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace agentsim::calib {

struct KernelImplementation {
  std::string id;       // e.g. "deepgemm"
  std::string display;  // e.g. "DeepGEMM (DeepSeek's FP8 GEMM library)"
  std::string vendor;   // "nvidia", "amd": the parts it runs on
};

// Every implementation a shipped table measures, in a fixed order.
const std::vector<KernelImplementation>& kernel_implementations();
// The implementation called `id`, or null.
const KernelImplementation* find_kernel_implementation(const std::string& id);
// The implementation a published row measured, from its file ("gemm.csv") and its library,
// kernel or tool column; "" where the text names none of the known ones.
std::string implementation_of(const std::string& file, const std::string& library);
// The implementation a device run's program measured ("triton_moe_check.py" -> the Triton
// fused MoE, "torch_gemm_check.py" -> cuBLAS, the CUDA suite -> the CUDA runtime's launches).
std::string implementation_of_program(const std::string& program);
// The profile key of implementation `id`'s table of `table`: "grouped_gemm_fp8@triton-fused-moe".
std::string implementation_table(const std::string& table, const std::string& id);
// Whether `name` is an op table a profile prices by: a kernel family (calibration/kernel_family.hpp),
// then _fp4, _fp8, _bf16 or _fp32 where it has dtypes ("grouped_gemm_fp8", "attention_prefill").
bool is_op_table(const std::string& name);
// Why implementation `id` cannot price op table `table` ("" when it can): the table is no op table,
// or the id no known implementation. (Whether the id runs on a given part is the caller's check.)
std::string kernel_choice_error(const std::string& table, const std::string& id);
// Reads one "TABLE=ID" choice (spaces around it ignored) into `into`; "" on success, else why not
// (no '=', or kernel_choice_error's reason). For the CLI's --kernel and the measured-runs column.
std::string read_kernel_choice(std::string_view text, std::map<std::string, std::string>& into);
// The op table a key names ("grouped_gemm_fp8" for either key above) and its implementation ("" if none).
std::string base_table(const std::string& key);
std::string table_implementation(const std::string& key);

}  // namespace agentsim::calib
