#include "calibration/kernel_implementation.hpp"

#include <algorithm>
#include <cctype>

#include "calibration/kernel_family.hpp"
#include "sim/core/decode_helpers.hpp"

namespace agentsim::calib {
namespace {

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool mentions(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

}  // namespace

const std::vector<KernelImplementation>& kernel_implementations() {
  static const std::vector<KernelImplementation> all = {
      {"cublas", "cuBLAS / cuBLASLt (torch.matmul, superbench cublaslt_gemm)", "nvidia"},
      {"cutlass-vllm", "vLLM's CUTLASS GEMMs (block FP8 on SM90, FP8 and NVFP4 on SM100)", "nvidia"},
      {"triton-vllm", "vLLM's Triton w8a8 block-FP8 GEMM", "nvidia"},
      {"deepgemm", "DeepGEMM (DeepSeek's FP8 dense and grouped GEMMs, SM90)", "nvidia"},
      {"triton-fused-moe", "Triton fused MoE (SGLang's fused_moe_kernel, adapted from vLLM's)", "nvidia"},
      {"flashinfer-trtllm-gen", "FlashInfer's TRTLLM-gen kernels (fused MoE, decode attention; SM100)", "nvidia"},
      {"flashmla", "FlashMLA (DeepSeek's MLA decode and NVIDIA's SM100 MHA prefill kernels)", "nvidia"},
      {"flash-attention-2", "FlashAttention-2", ""},
      {"flash-attention-3", "FlashAttention-3 (SM90)", "nvidia"},
      {"cudnn-attention", "cuDNN fused attention", "nvidia"},
      {"triton-attention", "Triton attention (the FlashAttention-3 paper's baseline)", "nvidia"},
      {"torch-attention", "standard PyTorch attention (unfused)", ""},
      {"hipblaslt", "hipBLASLt", "amd"},
      {"aiter", "AMD aiter (tuned CK / asm GEMMs, fused MoE, MLA decode)", "amd"},
      {"nccl", "NCCL (nccl-tests all_reduce_perf)", "nvidia"},
      {"rccl", "RCCL (rccl-tests all_reduce_perf)", "amd"},
      {"custom-ar-sglang", "sgl-kernel custom all-reduce (TensorRT-LLM-derived one-/two-shot)", "nvidia"},
      {"custom-ar-vllm", "vLLM custom all-reduce (CUDA IPC)", "nvidia"},
      {"custom-ar-vllm-rocm", "vLLM ROCm custom all-reduce (aiter-derived)", "amd"},
      {"babelstream", "BabelStream (HBM stream)", ""},
      {"cuda-runtime", "CUDA runtime launches and graph replays (this repository's CUDA suite)", "nvidia"},
  };
  return all;
}

const KernelImplementation* find_kernel_implementation(const std::string& id) {
  const auto& all = kernel_implementations();
  const auto it = std::find_if(all.begin(), all.end(), [&](const KernelImplementation& k) { return k.id == id; });
  return it == all.end() ? nullptr : &*it;
}

std::string implementation_of(const std::string& file, const std::string& library) {
  const std::string l = lower(library);
  if (file == "custom_all_reduce.csv") {
    if (mentions(l, "sgl-kernel")) return "custom-ar-sglang";
    if (mentions(l, "rocm")) return "custom-ar-vllm-rocm";
    if (mentions(l, "vllm")) return "custom-ar-vllm";
    return "";
  }
  if (mentions(l, "deepgemm")) return "deepgemm";
  if (mentions(l, "trtllm-gen")) return "flashinfer-trtllm-gen";
  if (mentions(l, "aiter")) return "aiter";
  if (mentions(l, "hipblaslt")) return "hipblaslt";
  if (mentions(l, "cublas")) return "cublas";  // cuBLASLt, torch.matmul (cuBLAS)
  if (mentions(l, "vllm cutlass")) return "cutlass-vllm";
  if (mentions(l, "vllm triton")) return "triton-vllm";
  if (mentions(l, "flashmla")) return "flashmla";
  if (mentions(l, "flashattention-3")) return "flash-attention-3";
  if (mentions(l, "flashattention-2")) return "flash-attention-2";
  if (mentions(l, "cudnn")) return "cudnn-attention";
  if (mentions(l, "standard pytorch attention")) return "torch-attention";
  if (l == "triton") return "triton-attention";
  if (l.starts_with("rccl")) return "rccl";  // "NCCL ... via nccl-tests/rccl-tests" is NCCL
  if (l.starts_with("nccl")) return "nccl";
  if (mentions(l, "babelstream")) return "babelstream";
  return "";
}

std::string implementation_of_program(const std::string& program) {
  if (mentions(program, "triton_moe_check")) return "triton-fused-moe";
  if (mentions(program, "torch_gemm_check")) return "cublas";
  if (mentions(program, "agentsim")) return "cuda-runtime";
  return "";
}

std::string implementation_table(const std::string& table, const std::string& id) { return table + "@" + id; }

bool is_op_table(const std::string& name) {
  std::string family = name;
  for (const char* d : {"_fp4", "_fp8", "_bf16", "_fp32"}) {
    if (name.ends_with(d)) family = name.substr(0, name.size() - std::string(d).size());
  }
  return std::any_of(kernel_families().begin(), kernel_families().end(),
                     [&](const KernelFamily& f) { return f.name == family; });
}

std::string kernel_choice_error(const std::string& table, const std::string& id) {
  if (!is_op_table(table))
    return "'" + table + "' is not an op table (a kernel family such as gemm, then _fp4, _fp8, _bf16 or _fp32 where it has dtypes)";
  if (find_kernel_implementation(id) == nullptr) {
    std::vector<std::string> ids;
    for (const auto& k : kernel_implementations()) ids.push_back(k.id);
    return core::unknown_name_message("implementation", id, ids);
  }
  return "";
}

std::string read_kernel_choice(std::string_view text, std::map<std::string, std::string>& into) {
  const std::size_t first = text.find_first_not_of(' ');
  text = first == std::string_view::npos ? std::string_view{} : text.substr(first, text.find_last_not_of(' ') + 1 - first);
  const std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return "expected TABLE=IMPLEMENTATION (e.g. grouped_gemm_fp8=deepgemm), got '" + std::string(text) + "'";
  }
  const std::string table(text.substr(0, eq)), id(text.substr(eq + 1));
  if (std::string why = kernel_choice_error(table, id); !why.empty()) return why;
  into[table] = id;
  return "";
}

std::string base_table(const std::string& key) { return key.substr(0, key.find('@')); }

std::string table_implementation(const std::string& key) {
  const auto at = key.find('@');
  return at == std::string::npos ? "" : key.substr(at + 1);
}

}  // namespace agentsim::calib
