#include "calibration/calibration_file.hpp"

#include <unistd.h>

#include <H5Cpp.h>

#include <filesystem>

#include "calibration/kernel_family.hpp"
#include "sim/core/atomic_write.hpp"
#include "sim/core/error.hpp"

namespace agentsim::calib {
namespace fs = std::filesystem;

namespace {

void write_string_attribute(H5::H5Object& obj, const std::string& name, const std::string& value) {
  const H5::StrType type(H5::PredType::C_S1, value.empty() ? 1 : value.size());
  H5::Attribute a = obj.createAttribute(name, type, H5::DataSpace(H5S_SCALAR));
  a.write(type, value);
}

std::string read_string_attribute(const H5::Attribute& a) {
  std::string value;
  a.read(a.getStrType(), value);
  // Fixed-length strings come back padded with NULs.
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

void write_table(H5::H5File& f, const MeasurementTable& t) {
  const std::size_t n = t.rows();
  const std::size_t ncol = t.column_order.size();
  H5::CompType type(ncol * sizeof(double));
  std::vector<double> buffer(n * ncol);
  for (std::size_t c = 0; c < ncol; ++c) {
    type.insertMember(t.column_order[c], c * sizeof(double), H5::PredType::NATIVE_DOUBLE);
    const auto& col = t.column(t.column_order[c]);
    for (std::size_t r = 0; r < n; ++r) buffer[r * ncol + c] = col[r];
  }
  const hsize_t dims[1] = {n};
  // No object timestamps: the same tables write byte-identical files.
  H5::DSetCreatPropList dcpl;
  H5Pset_obj_track_times(dcpl.getId(), 0);
  H5::DataSet ds = f.createDataSet(t.family, type, H5::DataSpace(1, dims), dcpl);
  if (n > 0) ds.write(buffer.data(), type);
  for (const auto& [k, v] : t.attributes) write_string_attribute(ds, k, v);
}

std::string class_name(H5T_class_t c) {
  switch (c) {
    case H5T_STRING: return "a string";
    case H5T_INTEGER: return "an integer";
    case H5T_FLOAT: return "a float";
    case H5T_COMPOUND: return "a compound";
    case H5T_ARRAY: return "an array";
    case H5T_ENUM: return "an enum";
    default: return "a non-numeric type";
  }
}

MeasurementTable read_table(const std::string& path, H5::H5File& f, const std::string& name) {
  const core::SourceLocation where{path, 0, "/" + name};
  H5::DataSet ds = f.openDataSet(name);
  const H5::DataType dtype = ds.getDataType();
  if (dtype.getClass() != H5T_COMPOUND) throw core::Error(where, "dataset is " + class_name(dtype.getClass()) + "; expected a table (compound of float64 columns)");
  const H5::CompType ctype = ds.getCompType();
  H5::DataSpace space = ds.getSpace();
  if (space.getSimpleExtentNdims() != 1) throw core::Error(where, "table must be one-dimensional");
  hsize_t n = 0;
  space.getSimpleExtentDims(&n);

  MeasurementTable t;
  t.family = name;
  for (int i = 0; i < ctype.getNmembers(); ++i) {
    const std::string col = ctype.getMemberName(static_cast<unsigned>(i));
    const H5T_class_t cls = ctype.getMemberClass(static_cast<unsigned>(i));
    if (cls != H5T_FLOAT && cls != H5T_INTEGER)
      throw core::Error(where, "column '" + col + "' is " + class_name(cls) + "; expected a number (float64)");
    // Reading one member by name lets HDF5 convert integer or float32 columns to double.
    H5::CompType one(sizeof(double));
    one.insertMember(col, 0, H5::PredType::NATIVE_DOUBLE);
    std::vector<double> values(n);
    if (n > 0) ds.read(values.data(), one);
    t.column_order.push_back(col);
    t.columns[col] = std::move(values);
  }
  for (int i = 0; i < ds.getNumAttrs(); ++i) {
    const H5::Attribute a = ds.openAttribute(static_cast<unsigned>(i));
    if (a.getTypeClass() != H5T_STRING) throw core::Error(where, "attribute '" + a.getName() + "' must be a string");
    t.attributes[a.getName()] = read_string_attribute(a);
  }
  return t;
}

void validate(const CalibrationFile& file) {
  const auto backend_it = file.attributes.find("backend");
  if (backend_it == file.attributes.end()) throw core::Error(core::SourceLocation{file.path, 0, "/"}, "missing root attribute 'backend'");
  for (const std::string& fam : required_families(backend_it->second)) {
    if (!file.tables.contains(fam))
      throw core::Error(core::SourceLocation{file.path, 0, "/" + fam},
                        "missing table (every '" + backend_it->second + "' calibration has one)");
  }
  for (const auto& [name, t] : file.tables) {
    const KernelFamily& fam = kernel_family(name);
    for (const std::string& col : required_columns(fam)) {
      if (!t.columns.contains(col)) throw core::Error(core::SourceLocation{file.path, 0, "/" + name}, "missing column '" + col + "'");
    }
    for (const std::string& axis : fam.axes) {
      for (double v : t.column(axis)) {
        if (!(v > 0)) throw core::Error(core::SourceLocation{file.path, 0, "/" + name}, "column '" + axis + "' has a value <= 0 (" + std::to_string(v) + ")");
      }
    }
    for (double v : t.column(fam.achieved_column)) {
      if (!(v > 0)) throw core::Error(core::SourceLocation{file.path, 0, "/" + name}, "column '" + fam.achieved_column + "' has a value <= 0");
    }
  }
}

}  // namespace

void write_calibration_file(const std::string& path, const CalibrationFile& file) {
  core::write_atomically(path, [&](const std::string& tmp) {
    try {
      H5::Exception::dontPrint();
      H5::H5File f(tmp, H5F_ACC_TRUNC);
      for (const auto& [k, v] : file.attributes) write_string_attribute(f, k, v);
      for (const auto& [name, t] : file.tables) write_table(f, t);
      f.close();
    } catch (const H5::Exception& e) {
      throw core::Error(core::SourceLocation{path, 0, ""}, "cannot write calibration file: " + e.getDetailMsg());
    }
  });
}

CalibrationFile read_calibration_file(const std::string& path) {
  if (!fs::exists(path)) throw core::Error(core::SourceLocation{path, 0, ""}, "no such file");
  H5::Exception::dontPrint();
  // Without this check a text or truncated file surfaces as HDF5's bare "H5Fopen failed".
  if (H5Fis_hdf5(path.c_str()) <= 0) {
    throw core::Error(core::SourceLocation{path, 0, ""},
                      "not an HDF5 file: expected a calibration file written by `agentsim calibrate`");
  }
  CalibrationFile out;
  out.path = path;
  std::string current = "/";
  try {
    H5::Exception::dontPrint();
    H5::H5File f(path, H5F_ACC_RDONLY);
    for (int i = 0; i < f.getNumAttrs(); ++i) {
      const H5::Attribute a = f.openAttribute(static_cast<unsigned>(i));
      if (a.getTypeClass() == H5T_STRING) out.attributes[a.getName()] = read_string_attribute(a);
    }
    for (hsize_t i = 0; i < f.getNumObjs(); ++i) {
      const std::string name = f.getObjnameByIdx(i);
      current = "/" + name;
      if (f.childObjType(name) != H5O_TYPE_DATASET) continue;
      kernel_family(name);  // unknown families are errors, not silently ignored
      out.tables[name] = read_table(path, f, name);
    }
  } catch (const H5::Exception& e) {
    throw core::Error(core::SourceLocation{path, 0, current}, "cannot read calibration file: " + e.getDetailMsg());
  } catch (const core::Error& e) {
    if (!e.where().file.empty()) throw;
    throw core::Error(core::SourceLocation{path, 0, current}, e.detail());
  }
  validate(out);
  return out;
}

}  // namespace agentsim::calib
