// The HDF5 calibration file: round trip, and errors that name file and dataset.
#include <gtest/gtest.h>

#include <H5Cpp.h>

#include <algorithm>
#include <filesystem>
#include <fstream>

#include "calibration/calibration_file.hpp"
#include "calibration/kernel_family.hpp"
#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace {
namespace fs = std::filesystem;

// One plausible row per CPU family, with every required column.
CalibrationFile minimal_cpu_file() {
  CalibrationFile f;
  f.attributes = {{"backend", "cpu"}, {"device", "test cpu"}, {"driver", "none"}, {"clocks", "n/a"},
                  {"date", "2025-01-01T00:00:00Z"}, {"command_line", "agentsim calibrate --backend cpu"}};
  for (const std::string& name : required_families("cpu")) {
    const KernelFamily& fam = kernel_family(name);
    MeasurementTable t;
    t.family = name;
    std::vector<std::pair<std::string, double>> row;
    for (const auto& c : required_columns(fam)) row.emplace_back(c, c == "held_out" ? 0.0 : (c == "dtype_bits" ? 32.0 : 2.0));
    t.add_row(row);
    f.tables[name] = t;
  }
  f.tables["gemm"].attributes["monotone"] = "n:+";
  return f;
}

class CalibrationFileTest : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_calfile_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  std::string error_of(const std::string& path) {
    try {
      read_calibration_file(path);
    } catch (const core::Error& e) {
      return e.what();
    }
    return "";
  }
};

TEST_F(CalibrationFileTest, RoundTripsAttributesAndTables) {
  const std::string path = (dir / "cal.h5").string();
  write_calibration_file(path, minimal_cpu_file());
  const CalibrationFile f = read_calibration_file(path);
  EXPECT_EQ(f.attributes.at("device"), "test cpu");
  EXPECT_EQ(f.attributes.at("command_line"), "agentsim calibrate --backend cpu");
  EXPECT_EQ(f.tables.size(), required_families("cpu").size());
  EXPECT_EQ(f.tables.at("gemm").attributes.at("monotone"), "n:+");
  EXPECT_EQ(f.tables.at("gemm").column("dtype_bits").at(0), 32.0);
  EXPECT_EQ(f.tables.at("mem_read").column_order.front(), "size_bytes");
  // No temporary file is left beside the target.
  EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 1);
}

TEST_F(CalibrationFileTest, MissingTableNamesFileAndDataset) {
  CalibrationFile f = minimal_cpu_file();
  f.tables.erase("attention_prefill");
  const std::string path = (dir / "cal.h5").string();
  write_calibration_file(path, f);
  const std::string err = error_of(path);
  EXPECT_NE(err.find(path), std::string::npos) << err;
  EXPECT_NE(err.find("/attention_prefill"), std::string::npos) << err;
  EXPECT_NE(err.find("missing table"), std::string::npos) << err;
}

TEST_F(CalibrationFileTest, MissingColumnNamesFileAndDataset) {
  CalibrationFile f = minimal_cpu_file();
  MeasurementTable& t = f.tables["mem_copy"];
  t.columns.erase("time_s");
  t.column_order.erase(std::find(t.column_order.begin(), t.column_order.end(), "time_s"));
  const std::string path = (dir / "cal.h5").string();
  write_calibration_file(path, f);
  const std::string err = error_of(path);
  EXPECT_NE(err.find(path + ": /mem_copy: missing column 'time_s'"), std::string::npos) << err;
}

TEST_F(CalibrationFileTest, StringColumnNamesFileDatasetAndColumn) {
  const std::string path = (dir / "cal.h5").string();
  write_calibration_file(path, minimal_cpu_file());
  {
    // Replace mem_read by a table whose size_bytes column holds strings.
    H5::H5File h(path, H5F_ACC_RDWR);
    h.unlink("mem_read");
    struct Row {
      char size[8];
      double bytes;
    };
    const H5::StrType str(H5::PredType::C_S1, 8);
    H5::CompType type(sizeof(Row));
    type.insertMember("size_bytes", HOFFSET(Row, size), str);
    type.insertMember("bytes", HOFFSET(Row, bytes), H5::PredType::NATIVE_DOUBLE);
    const hsize_t dims[1] = {1};
    Row row{"4KiB", 4096};
    h.createDataSet("mem_read", type, H5::DataSpace(1, dims)).write(&row, type);
  }
  const std::string err = error_of(path);
  EXPECT_NE(err.find(path + ": /mem_read: column 'size_bytes' is a string"), std::string::npos) << err;
}

TEST_F(CalibrationFileTest, UnknownFamilyAndNotHdf5AreErrors) {
  const std::string bogus = (dir / "not.h5").string();
  std::ofstream(bogus) << "hello";
  EXPECT_NE(error_of(bogus).find(bogus), std::string::npos);
  EXPECT_NE(error_of((dir / "absent.h5").string()).find("no such file"), std::string::npos);

  CalibrationFile f = minimal_cpu_file();
  MeasurementTable extra = f.tables["gemm"];
  extra.family = "gemmm";
  f.tables["gemmm"] = extra;
  const std::string path = (dir / "cal.h5").string();
  write_calibration_file(path, f);
  const std::string err = error_of(path);
  EXPECT_NE(err.find("/gemmm"), std::string::npos) << err;
  EXPECT_NE(err.find("did you mean 'gemm'"), std::string::npos) << err;
}

}  // namespace
}  // namespace agentsim::calib
