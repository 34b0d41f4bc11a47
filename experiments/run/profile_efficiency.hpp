#pragma once
// Kernel efficiencies from a calibration profile (calibration/efficiency_profile):
// GEMMs from gemm_<dtype>, expert GEMMs from grouped_gemm_<dtype> (gemm_<dtype> per
// group where the profile has none) on both sides of the roofline where the table is a
// roofline fraction (FittedTable::mem_bw_Bps), attention from attention_decode /
// attention_prefill, HBM traffic from mem_read, launch floors from launch_latency /
// graph_replay_latency, collectives from nccl_<op>_<N>node and the engines' own all-reduce
// from custom_all_reduce_1node. Each efficiency is
// rescaled from the table's peak to the accelerator's datasheet peak; a family the
// profile lacks falls back to the constant with a note. Every value's note names the
// table behind it, and "derived from <sibling> table" where the table was derived. With a
// kernel selection (the serving engine's implementation per op table, kernel_selection.hpp) an
// op reads that implementation's table ("<table>@<id>", measured or derived from the same
// implementation on a sibling) and its note names it.
#include <array>
#include <map>
#include <memory>
#include <string>

#include "calibration/efficiency_profile.hpp"
#include "experiments/run/kernel_selection.hpp"
#include "hwmodels/accelerator.hpp"
#include "sim/core/error.hpp"
#include "sim/serving/kernel_efficiency.hpp"

namespace agentsim::exp {

// A collective looked up in a profile: achieved bus bandwidth / the link's datasheet
// bandwidth at that message size, the seconds it implies, and the table's note.
struct CollectiveEfficiency {
  double bus_bw_efficiency = 0;  // 0 when the profile has no table for the op
  double peak_Bps = 0;           // the table's datasheet link bandwidth (per GPU, per direction)
  double time_s = 0;             // bus bytes / (efficiency x peak)
  bool extrapolated = false;
  std::string note;
};

class ProfileEfficiency final : public serving::KernelEfficiency {
 public:
  // `implementations`: op table ("grouped_gemm_fp8") -> the implementation the engine runs there.
  ProfileEfficiency(calib::EfficiencyProfile profile, hw::Accelerator acc, hw::Efficiency fallback,
                    std::map<std::string, std::string> implementations = {});
  ProfileEfficiency(const ProfileEfficiency&) = delete;  // slots point into profile_
  ProfileEfficiency& operator=(const ProfileEfficiency&) = delete;
  serving::EfficiencyValue compute(const serving::KernelShape& s) const override;
  serving::EfficiencyValue memory(const serving::KernelShape& s) const override;
  serving::CallFloor launch_floor(bool graph) const override;
  // mla_decode_floor by the call's query heads, for a dense-MLA decode-kernel call (query_heads > 0).
  serving::CallFloor call_floor(const serving::KernelShape& s) const override;
  bool constant_between(const serving::KernelShape& a, const serving::KernelShape& b) const override;
  // The faster of the profile's custom_all_reduce_1node table (up to its largest measured size;
  // smaller messages than its first take that one's time) and nccl_all_reduce_1node table (time =
  // bus bytes / (efficiency x peak)); none below NCCL's smallest measured message (e.g. MI325X's
  // rows start at 4 GiB) where no custom table applies.
  serving::MeasuredCollective all_reduce(double bytes, int group) const override;
  std::string name() const override;

  // op: "all_reduce", "all_gather" or "all_to_all"; nodes: systems the group spans;
  // bytes: the message (nccl-tests "size"); group: ranks (bus bytes = 2(n-1)/n x size for
  // all-reduce, (n-1)/n x size otherwise). The step cost uses the 1-node all-reduce (all_reduce()).
  CollectiveEfficiency collective(const std::string& op, int nodes, double bytes, int group) const;
  // The all-reduce bus-bandwidth efficiency of one system's scale-up fabric at the largest
  // measured message (clamped to 1), or a negative value when the profile has none.
  double scale_up_network_efficiency() const;
  const calib::EfficiencyProfile& profile() const { return profile_; }

 private:
  struct Slot {
    const calib::FittedTable* table = nullptr;
    double scale = 1;            // table peak / datasheet peak
    double mem_scale = 0;        // GEMM roofline tables: table HBM bandwidth / datasheet's; 0: none
    std::string note;            // "gemm_bf16 table[, derived from b200 table]"
    std::string note_extrap;     // "gemm_bf16 extrapolated (measured m 1..256, ...)[, derived ...]"
    std::array<int, 4> axis{};   // shape field of each table axis (see kField*)
  };
  Slot slot(const std::string& table, const std::string& used_for, double datasheet_peak) const;
  // collective() on the table `name` (nccl_<op>_<N>node or custom_all_reduce_1node).
  CollectiveEfficiency table_collective(const std::string& name, const std::string& op, double bytes,
                                        int group) const;
  // `scale`: table value to datasheet fraction; <= 0: the slot's FLOP-peak scale.
  serving::EfficiencyValue look(const Slot& s, const serving::KernelShape& k, double fallback,
                                double scale = 0) const;
  // The shape's values along the slot's table axes (at least 1, as looked up); returns how many.
  static std::size_t table_shape(const Slot& s, const serving::KernelShape& k, std::array<double, 4>& shape);
  // look(s, ...) is the same for every shape between a and b (no table: the fallback).
  bool flat(const Slot& s, const serving::KernelShape& a, const serving::KernelShape& b) const;

  calib::EfficiencyProfile profile_;
  hw::Accelerator acc_;
  hw::Efficiency fallback_;
  std::map<std::string, std::string> implementations_;
  std::array<Slot, 4> gemm_, grouped_;  // by dtype: fp4, fp8, bf16, fp32
  Slot prefill_, decode_, decode_compute_, mem_, mla_floor_;
};

// The accelerator's profile (path relative to `root` unless absolute), or null
// when it names none. Throws core::Error when the file is missing or invalid. `engine` (a
// serving.engine name; empty: none) selects each op's implementation from the catalog's
// kernel_implementations.yaml under `root` (kernel_selection.hpp), with its choices for the FP8
// tables `per_tensor` names (weights with one scale per tensor) and its ep_across_systems choices when
// `ep_across_systems` (the plan's expert-parallel group spans systems), and `overrides`
// (serving.kernels: op table -> implementation, `overrides_at` where each is written) over them.
std::shared_ptr<const ProfileEfficiency> load_profile_efficiency(
    const hw::Accelerator& acc, const std::string& root, hw::Efficiency fallback, const std::string& engine = "",
    bool ep_across_systems = false, const PerTensorFp8& per_tensor = {},
    const std::map<std::string, std::string>& overrides = {},
    const std::map<std::string, core::SourceLocation>& overrides_at = {});

}  // namespace agentsim::exp
