#include "experiments/run/kernel_selection.hpp"

#include <filesystem>
#include <mutex>

#include "calibration/kernel_implementation.hpp"
#include "sim/core/error.hpp"
#include "sim/core/decode_helpers.hpp"
#include "sim/core/name_table.hpp"
#include "sim/core/yaml_node.hpp"
#include "sim/serving/engine_overhead.hpp"

namespace agentsim::exp {
namespace {

// The architectures the catalog's accelerators name, and whose parts they are.
const std::map<std::string, std::string>& architecture_vendors() {
  static const std::map<std::string, std::string> v = {
      {"ampere", "nvidia"}, {"hopper", "nvidia"}, {"blackwell", "nvidia"}, {"cdna3", "amd"}, {"cdna4", "amd"}};
  return v;
}

// The op tables a per_tensor_fp8 section may override: the FP8 weight GEMMs, dense and expert.
constexpr const char* kDenseFp8 = "gemm_fp8";
constexpr const char* kExpertFp8 = "grouped_gemm_fp8";

std::vector<std::string> keys_of(const std::map<std::string, std::string>& m) {
  std::vector<std::string> out;
  out.reserve(m.size());
  for (const auto& [k, v] : m) out.push_back(k);
  return out;
}

// `node`'s implementation id for op table `table`: an error at the node where `table` is no op
// table or the id no known implementation.
std::string checked_kernel_choice(const std::string& table, const core::YamlNode& v) {
  std::string id = v.as_string();
  if (const std::string why = calib::kernel_choice_error(table, id); !why.empty()) throw v.error(why);
  return id;
}

// Why implementation `id` (a known one) cannot run on architecture `arch` ("" when it can: same
// vendor, or a vendor-neutral implementation); `part` names the accelerator in the message, if any.
std::string vendor_error(const std::string& id, const std::string& arch, const std::string& part = "") {
  const calib::KernelImplementation* impl = calib::find_kernel_implementation(id);
  const auto vendor = architecture_vendors().find(arch);
  if (impl == nullptr || impl->vendor.empty() || vendor == architecture_vendors().end() || impl->vendor == vendor->second) {
    return "";
  }
  return "implementation '" + id + "' runs on " + impl->vendor + " parts, not on " +
         (part.empty() ? arch + " (" : part + " (" + arch + ", ") + vendor->second + ")";
}

}  // namespace

KernelSelection with_overrides(KernelSelection sel, const std::map<std::string, std::string>& overrides,
                               const std::map<std::string, core::SourceLocation>& where, const hw::Accelerator& acc) {
  for (const auto& [table, id] : overrides) {
    if (const std::string why = vendor_error(id, acc.architecture, acc.name); !why.empty()) {
      const auto at = where.find(table);
      throw core::Error(at != where.end() ? at->second : core::SourceLocation{}, why);
    }
    sel[table] = id;
  }
  return sel;
}

std::map<std::string, EngineKernels> load_kernel_selections(const std::string& path) {
  const core::YamlNode top = core::YamlNode::load_file(path);
  if (!top.is_map()) throw top.error("expected a mapping with the key 'engines'");
  for (const std::string& k : top.keys()) {
    if (k != "engines") throw top.at(k).error("unknown key '" + k + "'; expected: engines");
  }
  // An architecture's mapping of op table to implementation.
  // `engine_level`: a key beside the architectures, where the override sections may stand too.
  auto selection = [](const std::string& arch, const core::YamlNode& a, bool engine_level) {
    const auto vendor = architecture_vendors().find(arch);
    if (vendor == architecture_vendors().end()) {
      std::vector<std::string> expected = keys_of(architecture_vendors());
      if (engine_level) {
        expected.push_back("per_tensor_fp8");
        expected.push_back("ep_across_systems");
      }
      throw a.error(core::unknown_name_message("architecture", arch, expected));
    }
    if (!a.is_map()) throw a.error("expected a mapping of op table (e.g. grouped_gemm_fp8) to implementation");
    KernelSelection sel;
    for (const std::string& table : a.keys()) {
      const core::YamlNode v = a.at(table);
      const std::string id = checked_kernel_choice(table, v);
      if (const std::string why = vendor_error(id, arch); !why.empty()) throw v.error(why);
      sel[table] = id;
    }
    return sel;
  };
  std::map<std::string, EngineKernels> out;
  const core::YamlNode engines = top.at("engines");
  if (!engines.is_map()) throw engines.error("expected a mapping of serving engine to architectures");
  for (const std::string& engine : engines.keys()) {
    const core::YamlNode e = engines.at(engine);
    if (!core::from_name(serving::kEngineNames, engine))
      throw e.error(core::unknown_name_message("engine", engine, core::names_of(serving::kEngineNames)));
    if (!e.is_map()) throw e.error("expected a mapping of accelerator architecture to op tables");
    EngineKernels& k = out[engine];
    for (const std::string& arch : e.keys()) {
      const core::YamlNode a = e.at(arch);
      if (arch != "ep_across_systems" && arch != "per_tensor_fp8") {
        k.by_architecture[arch] = selection(arch, a, true);
        continue;
      }
      if (!a.is_map()) throw a.error("expected a mapping of accelerator architecture to op tables");
      auto& section = arch == "per_tensor_fp8" ? k.per_tensor_fp8 : k.ep_across_systems;
      for (const std::string& over : a.keys()) {
        section[over] = selection(over, a.at(over), false);
        if (arch != "per_tensor_fp8") continue;
        for (const auto& [table, id] : section[over]) {
          if (table != kDenseFp8 && table != kExpertFp8)
            throw a.at(over).at(table).error(std::string("per_tensor_fp8 overrides FP8 weight GEMMs only; expected ") +
                                             kDenseFp8 + " or " + kExpertFp8);
        }
      }
    }
  }
  return out;
}

PerTensorFp8 per_tensor_fp8(wl::WeightFormat dense, wl::WeightFormat experts) {
  PerTensorFp8 out;
  if (dense.dtype == hw::DType::kFp8 && dense.block <= 0) out.insert(kDenseFp8);
  if (experts.dtype == hw::DType::kFp8 && experts.block <= 0) out.insert(kExpertFp8);
  return out;
}

KernelSelection kernel_selection(const std::string& root, const std::string& engine, const hw::Accelerator& acc,
                                 bool ep_across_systems, const PerTensorFp8& per_tensor) {
  const std::string path = (std::filesystem::path(root) / "experiments/catalog/kernel_implementations.yaml").string();
  static std::mutex mu;
  static std::map<std::string, std::map<std::string, EngineKernels>> cache;
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache.find(path);
  if (it == cache.end()) {
    std::map<std::string, EngineKernels> loaded;
    if (std::filesystem::exists(path)) loaded = load_kernel_selections(path);
    it = cache.emplace(path, std::move(loaded)).first;
  }
  const auto e = it->second.find(engine);
  if (e == it->second.end()) return {};
  KernelSelection out;
  if (const auto a = e->second.by_architecture.find(acc.architecture); a != e->second.by_architecture.end()) out = a->second;
  if (const auto o = e->second.per_tensor_fp8.find(acc.architecture); o != e->second.per_tensor_fp8.end()) {
    for (const auto& [table, id] : o->second) {
      if (per_tensor.contains(table)) out[table] = id;
    }
  }
  if (ep_across_systems) {
    if (const auto o = e->second.ep_across_systems.find(acc.architecture); o != e->second.ep_across_systems.end()) {
      for (const auto& [table, id] : o->second) out[table] = id;
    }
  }
  return out;
}

}  // namespace agentsim::exp
