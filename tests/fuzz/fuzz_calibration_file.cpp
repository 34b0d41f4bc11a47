// libFuzzer target: calibration files, structure-aware. Fuzzing libhdf5's own
// parser is out of scope (it is not hardened against garbage), so the fuzz bytes
// choose the *contents* of a well-formed HDF5 file instead: root attributes, which
// kernel-family datasets exist, their rank, row count, member names and types,
// the values (NaN, inf, negatives, zero, huge) and dataset attributes. The file
// is written to a temporary path, read through calib::read_calibration_file and
// fitted with calib::fit_profile; every outcome must be a result or a core::Error,
// and every fitted table must answer lookups with finite values.
#include <unistd.h>

#include <H5Cpp.h>
#include <fuzzer/FuzzedDataProvider.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "calibration/calibration_file.hpp"
#include "calibration/fitter.hpp"
#include "calibration/kernel_family.hpp"
#include "sim/core/error.hpp"

namespace {

using agentsim::calib::KernelFamily;

std::string temp_path() {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/agentsim-fuzz-calibration-" + std::to_string(getpid()) + ".h5";
}

double special_value(FuzzedDataProvider& in) {
  switch (in.ConsumeIntegralInRange<int>(0, 9)) {
    case 0: return std::numeric_limits<double>::quiet_NaN();
    case 1: return std::numeric_limits<double>::infinity();
    case 2: return -std::numeric_limits<double>::infinity();
    case 3: return -1.0;
    case 4: return 0.0;
    case 5: return 1e-300;
    case 6: return 1e300;
    case 7: return std::numeric_limits<double>::denorm_min();
    case 8: return std::numeric_limits<double>::max();
    default: return in.ConsumeFloatingPoint<double>();
  }
}

// A plausible value of `column` (mostly valid, so the fitter is reached), or a special one.
double column_value(FuzzedDataProvider& in, const std::string& column) {
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) return special_value(in);
  if (column == "dtype_bits") return 4.0 * (1 << in.ConsumeIntegralInRange<int>(0, 3));
  if (column == "held_out") return in.ConsumeBool() ? 1.0 : 0.0;
  if (column.find("achieved") != std::string::npos || column == "seconds_per_kernel" || column == "time_s") {
    return std::ldexp(1.0 + in.ConsumeIntegralInRange<int>(0, 255) / 256.0, in.ConsumeIntegralInRange<int>(-30, 50));
  }
  return std::ldexp(1.0, in.ConsumeIntegralInRange<int>(0, 30));
}

void write_string_attribute(H5::H5Object& obj, const std::string& name, const std::string& value) {
  const H5::StrType type(H5::PredType::C_S1, value.empty() ? 1 : value.size());
  obj.createAttribute(name, type, H5::DataSpace(H5S_SCALAR)).write(type, value);
}

void write_attribute(FuzzedDataProvider& in, H5::H5Object& obj, const std::string& name, const std::string& value) {
  if (obj.attrExists(name)) return;
  if (in.ConsumeIntegralInRange<int>(0, 15) == 0) {
    const int v = in.ConsumeIntegral<int>();
    obj.createAttribute(name, H5::PredType::NATIVE_INT, H5::DataSpace(H5S_SCALAR)).write(H5::PredType::NATIVE_INT, &v);
    return;
  }
  write_string_attribute(obj, name, value);
}

std::string fuzzed_name(FuzzedDataProvider& in, const std::vector<std::string>& usual) {
  if (!usual.empty() && in.ConsumeIntegralInRange<int>(0, 7) != 0) {
    return usual[in.ConsumeIntegralInRange<std::size_t>(0, usual.size() - 1)];
  }
  std::string s = in.ConsumeRandomLengthString(16);
  return s.empty() ? "x" : s;
}

void write_table(FuzzedDataProvider& in, H5::H5File& f, const KernelFamily& fam) {
  std::vector<std::string> columns;
  for (const std::string& c : agentsim::calib::required_columns(fam)) {
    if (in.ConsumeIntegralInRange<int>(0, 31) != 0) columns.push_back(c);  // rarely drop a required column
  }
  if (in.ConsumeIntegralInRange<int>(0, 7) == 0) columns.push_back(fuzzed_name(in, {"note", "m", "extra"}));
  const std::size_t rows = in.ConsumeIntegralInRange<std::size_t>(0, 12);
  const bool two_d = in.ConsumeIntegralInRange<int>(0, 31) == 0;
  const hsize_t dims[2] = {rows, 2};
  const H5::DataSpace space(two_d ? 2 : 1, dims);
  const std::size_t cells = rows * (two_d ? 2 : 1);

  if (in.ConsumeIntegralInRange<int>(0, 31) == 0) {  // not a table at all
    std::vector<double> v(cells, 1.0);
    H5::DataSet ds = f.createDataSet(fam.name, H5::PredType::NATIVE_DOUBLE, space);
    if (cells > 0) ds.write(v.data(), H5::PredType::NATIVE_DOUBLE);
    return;
  }
  // One member per column, each float64 (mostly), float32, int32 or a string.
  std::vector<int> kinds;
  std::size_t offset = 0;
  std::vector<std::size_t> offsets;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const int k = in.ConsumeIntegralInRange<int>(0, 40);
    kinds.push_back(k <= 37 ? 0 : k - 37);
    offsets.push_back(offset);
    offset += 8;
  }
  H5::CompType type(offset == 0 ? 8 : offset);
  const H5::StrType str8(H5::PredType::C_S1, 8);
  std::vector<std::string> seen;
  for (std::size_t c = 0; c < columns.size(); ++c) {
    bool dup = false;
    for (const auto& s : seen) dup = dup || s == columns[c];
    if (dup) continue;
    seen.push_back(columns[c]);
    switch (kinds[c]) {
      case 0: type.insertMember(columns[c], offsets[c], H5::PredType::NATIVE_DOUBLE); break;
      case 1: type.insertMember(columns[c], offsets[c], H5::PredType::NATIVE_FLOAT); break;
      case 2: type.insertMember(columns[c], offsets[c], H5::PredType::NATIVE_INT32); break;
      default: type.insertMember(columns[c], offsets[c], str8); break;
    }
  }
  std::vector<unsigned char> buffer(cells * type.getSize(), 0);
  for (std::size_t r = 0; r < cells; ++r) {
    unsigned char* row = buffer.data() + r * type.getSize();
    for (std::size_t c = 0; c < columns.size(); ++c) {
      const double v = column_value(in, columns[c]);
      switch (kinds[c]) {
        case 0: std::memcpy(row + offsets[c], &v, sizeof v); break;
        case 1: {
          const float x = static_cast<float>(v);
          std::memcpy(row + offsets[c], &x, sizeof x);
          break;
        }
        case 2: {
          const std::int32_t x = std::isfinite(v) && std::fabs(v) < 2e9 ? static_cast<std::int32_t>(v) : -1;
          std::memcpy(row + offsets[c], &x, sizeof x);
          break;
        }
        default: std::memcpy(row + offsets[c], "12abc\0\0", 8); break;
      }
    }
  }
  H5::DataSet ds = f.createDataSet(fam.name, type, space);
  if (cells > 0) ds.write(buffer.data(), type);
  const int nattrs = in.ConsumeIntegralInRange<int>(0, 3);
  for (int a = 0; a < nattrs; ++a) {
    write_attribute(in, ds, fuzzed_name(in, {"monotone", "peak_source", "units"}), in.ConsumeRandomLengthString(24));
  }
}

void write_file(FuzzedDataProvider& in, const std::string& path) {
  H5::H5File f(path, H5F_ACC_TRUNC);
  const std::string backend = fuzzed_name(in, {"cpu", "cpu", "cpu", "cuda"});
  if (in.ConsumeIntegralInRange<int>(0, 31) != 0) write_attribute(in, f, "backend", backend);
  for (const char* a : {"device", "driver", "clocks", "date", "command_line"}) {
    if (in.ConsumeBool()) write_attribute(in, f, a, in.ConsumeRandomLengthString(24));
  }
  for (const KernelFamily& fam : agentsim::calib::kernel_families()) {
    // The families the backend requires are usually present, the others sometimes.
    const auto& req = agentsim::calib::required_families(backend == "cuda" ? "cuda" : "cpu");
    const bool required = std::find(req.begin(), req.end(), fam.name) != req.end();
    if (in.ConsumeIntegralInRange<int>(0, required ? 31 : 3) != 0 && required) write_table(in, f, fam);
    else if (!required && in.ConsumeIntegralInRange<int>(0, 3) == 0) write_table(in, f, fam);
  }
  if (in.ConsumeIntegralInRange<int>(0, 31) == 0) {  // an unknown family
    KernelFamily odd = agentsim::calib::kernel_families().front();
    odd.name = fuzzed_name(in, {"gemm2", "Gemm"});
    if (!f.nameExists(odd.name)) write_table(in, f, odd);
  }
  f.close();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = temp_path();
  FuzzedDataProvider in(data, size);
  try {
    H5::Exception::dontPrint();
    write_file(in, path);
  } catch (const H5::Exception&) {
    return 0;  // the fuzz bytes asked for a file HDF5 will not write (e.g. an odd member name)
  }
  try {
    const agentsim::calib::CalibrationFile file = agentsim::calib::read_calibration_file(path);
    const agentsim::calib::EfficiencyProfile profile = agentsim::calib::fit_profile(file);
    for (const auto& [name, table] : profile.tables) {
      for (double x : {1.0, 4096.0, 1e9}) {
        const auto found = table.lookup(std::vector<double>(table.axes.size(), x));
        if (!std::isfinite(found.value) || !(found.value > 0)) std::abort();
      }
    }
  } catch (const agentsim::core::Error&) {
  }
  return 0;
}
