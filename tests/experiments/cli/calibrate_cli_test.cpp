// End to end on the host CPU: agentsim calibrate --quick -> file -> fit ->
// profile -> cross-check, plus the CLI's error paths and backend listing.
#include <gtest/gtest.h>

#include "tests/support/cli_runner.hpp"

#include <sys/wait.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "calibration/calibration_file.hpp"
#include "calibration/cross_check.hpp"
#include "calibration/efficiency_profile.hpp"
#include "calibration/fitter.hpp"
#include "calibration/kernel_family.hpp"

namespace agentsim::calib {
namespace {
namespace fs = std::filesystem;

using Result = agentsim::test_support::CliResult;
using agentsim::test_support::run;
class CalibrateCli : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_calibrate_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
};

// One test, so the ~10 s CPU calibration runs once for all its checks.
TEST_F(CalibrateCli, CpuQuickCalibrateFitAndCrossCheck) {
  const std::string cal = (dir / "cal.h5").string();
  const std::string prof = (dir / "profile.yaml").string();
  const Result c = run("calibrate --backend cpu --quick --out " + cal);
  ASSERT_EQ(c.code, 0) << c.output;

  const CalibrationFile file = read_calibration_file(cal);
  for (const char* a : {"device", "driver", "clocks", "date", "command_line", "backend"}) {
    ASSERT_TRUE(file.attributes.contains(a)) << a;
    EXPECT_FALSE(file.attributes.at(a).empty()) << a;
  }
  EXPECT_NE(file.attributes.at("command_line").find("calibrate --backend cpu --quick --out " + cal), std::string::npos);
  EXPECT_EQ(file.attributes.at("backend"), "cpu");
  for (const std::string& fam : required_families("cpu")) {
    ASSERT_TRUE(file.tables.contains(fam)) << fam;
    EXPECT_GE(file.tables.at(fam).rows(), 8u) << fam;
  }

  const Result f = run("calibrate fit " + cal + " --out " + prof);
  ASSERT_EQ(f.code, 0) << f.output;
  EXPECT_NE(f.output.find("cross-check"), std::string::npos) << f.output;
  const EfficiencyProfile profile = load_profile(prof);
  EXPECT_EQ(profile.backend, "cpu");
  EXPECT_EQ(profile.device, file.attributes.at("device"));
  // One table per CPU family (GEMMs are fp32 only on the CPU).
  for (const char* t : {"gemm_fp32", "grouped_gemm_fp32", "mem_read", "mem_copy", "attention_decode", "attention_prefill"}) {
    ASSERT_TRUE(profile.tables.contains(t)) << t;
  }

  // The fitted efficiencies, read back from the profile, reproduce every fitted
  // point within the fit error the profile states, and never beyond 1 + max error.
  for (const auto& [name, et] : profile.tables) {
    const MeasurementTable& t = file.tables.at(et.family);
    const std::vector<double> measured = measured_values(t, et);
    std::size_t checked = 0;
    for (std::size_t r = 0; r < t.rows(); ++r) {
      if (t.column("held_out")[r] != 0) continue;
      std::vector<double> shape;
      for (const auto& ax : et.axes) shape.push_back(fitted_axis_value(t, ax.name, r));
      const EfficiencyLookup e = et.lookup(shape);
      EXPECT_FALSE(e.extrapolated) << name << " row " << r << ": " << e.note;
      EXPECT_LE(std::abs(e.value / measured[r] - 1), et.fit_error.max_rel_error + 1e-9) << name << " row " << r;
      ++checked;
    }
    EXPECT_EQ(checked, et.fit_error.points) << name;
    EXPECT_GT(et.peak, 0) << name;
    EXPECT_LE(measured_values(t, et).size(), t.rows());
  }

  // Cross-check: every family has held-out shapes inside the measured range,
  // and its error is reported (finite, and for the memory streams a sane size).
  const auto rows = cross_check(file, profile);
  ASSERT_EQ(rows.size(), profile.tables.size());
  for (const auto& r : rows) {
    EXPECT_GE(r.held_out.points, 2u) << r.table;
    EXPECT_EQ(r.held_out.extrapolated, 0u) << r.table;
    EXPECT_TRUE(std::isfinite(r.held_out.mape)) << r.table;
    EXPECT_GE(r.held_out.max_abs_error, r.held_out.mape) << r.table;
  }
  // The cross-check predicts through the roofline: on a fitted point its time
  // error equals measured / fitted efficiency - 1 (time = work / (peak * e)).
  const FittedTable& mem = profile.table("mem_read");
  const MeasurementTable& mt = file.tables.at("mem_read");
  const double e_fit = mem.lookup({mt.column("size_bytes")[0]}).value;
  const double e_meas = mt.column("achieved_bytes_per_s")[0] / mem.peak;
  EXPECT_NEAR(predict_time_s(mt, 0, mem) / mt.column("time_s")[0] - 1, e_meas / e_fit - 1, 1e-9);

  const Result chk = run("calibrate check " + cal + " " + prof);
  ASSERT_EQ(chk.code, 0) << chk.output;
  EXPECT_NE(chk.output.find("gemm_fp32"), std::string::npos) << chk.output;
}

TEST_F(CalibrateCli, BadCalibrationFileExitsTwoNamingFileAndWritesNothing) {
  const std::string bad = (dir / "bad.h5").string();
  std::ofstream(bad) << "not hdf5";
  const std::string prof = (dir / "profile.yaml").string();
  const Result r = run("calibrate fit " + bad + " --out " + prof);
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find(bad), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(prof));
}

TEST_F(CalibrateCli, UnknownBackendAndMissingOutAreErrors) {
  const Result r = run("calibrate --backend cpx --out " + (dir / "x.h5").string());
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("did you mean 'cpu'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir / "x.h5"));
  EXPECT_EQ(run("calibrate --backend cpu").code, 2);
}

TEST_F(CalibrateCli, ListsTheCudaBackendExactlyWhenNvccWasFound) {
  const Result r = run("calibrate --list-backends");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("cpu\n"), std::string::npos) << r.output;
#ifdef AGENTSIM_HAVE_CUDA
  EXPECT_NE(r.output.find("cuda\n"), std::string::npos) << r.output;
#else
  EXPECT_EQ(r.output.find("cuda"), std::string::npos) << r.output;
#endif
}

}  // namespace
}  // namespace agentsim::calib
