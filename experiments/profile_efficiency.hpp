#pragma once
// Kernel efficiencies from a calibration profile (calibration/efficiency_profile):
// GEMMs from gemm_<dtype>, expert GEMMs from grouped_gemm_<dtype>, attention
// from attention_decode / attention_prefill, HBM traffic from mem_read, launch
// floors from launch_latency / graph_replay_latency. Each efficiency is
// rescaled from the table's peak to the accelerator's datasheet peak; a
// family the profile lacks falls back to the constant with a note.
#include <memory>
#include <string>

#include "calibration/efficiency_profile.hpp"
#include "hwmodels/accelerator.hpp"
#include "sim/serving/kernel_efficiency.hpp"

namespace agentsim::exp {

class ProfileEfficiency final : public serving::KernelEfficiency {
 public:
  ProfileEfficiency(calib::EfficiencyProfile profile, hw::Accelerator acc, hw::Efficiency fallback);
  serving::EfficiencyValue compute(const serving::KernelShape& s) const override;
  serving::EfficiencyValue memory(const serving::KernelShape& s) const override;
  double launch_floor_s(bool graph) const override;
  std::string name() const override;

 private:
  serving::EfficiencyValue look(const std::string& table, const std::map<std::string, double>& shape,
                                double datasheet_peak, double fallback) const;
  calib::EfficiencyProfile profile_;
  hw::Accelerator acc_;
  hw::Efficiency fallback_;
};

// The accelerator's profile (path relative to `root` unless absolute), or null
// when it names none. Throws core::Error when the file is missing or invalid.
std::shared_ptr<const serving::KernelEfficiency> load_profile_efficiency(const hw::Accelerator& acc,
                                                                         const std::string& root,
                                                                         hw::Efficiency fallback);

}  // namespace agentsim::exp
