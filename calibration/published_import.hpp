#pragma once
// `agentsim calibrate import-published`: the published kernel measurements vendored under
// calibration/data/published/kernels/ (gemm, attention, collectives, memory, overheads CSVs)
// and this repository's own device runs under calibration/data/measured/, turned into one
// calibration file (HDF5, the microbenchmark layout) and one efficiency profile per catalog
// accelerator. Each row's gpu is mapped to a catalog accelerator, its
// achieved rate divided by that accelerator's datasheet peak (the table's `peak`
// attribute); a table an accelerator has no anchor rows for is copied from its nearest
// measured sibling (efficiencies kept, peak = its own datasheet figure) and marked
// `derived_from`. Rules and the measured/derived list: docs/calibration.md.
#include <map>
#include <string>
#include <vector>

#include "calibration/efficiency_profile.hpp"
#include "calibration/measurement_table.hpp"
#include "hwmodels/accelerator.hpp"
#include "hwmodels/system.hpp"

namespace agentsim::calib {

// The `quality` levels that may anchor a table (PROVENANCE.md's levels minus the
// secondary reports it says are for sanity checks only).
const std::vector<std::string>& anchor_quality_levels();

struct ImportFileSummary {
  std::string file;                             // e.g. "gemm.csv"
  std::size_t rows = 0;                         // data rows read
  std::size_t used = 0;                         // rows that entered a table (before best-per-shape)
  std::map<std::string, std::size_t> skipped;   // reason -> rows
};

struct PublishedImport {
  std::vector<ImportFileSummary> files;
  std::map<std::string, std::size_t> unmapped_gpus;   // gpu as the source names it -> rows skipped
  std::map<std::string, CalibrationFile> measured;    // accelerator -> its anchor rows (HDF5 content)
  std::map<std::string, EfficiencyProfile> profiles;  // accelerator -> measured + derived tables
};

// The catalog accelerator a row's gpu_family / gpu names, or "" when it names none
// (consumer parts, host CPUs, GH200, unstated models).
std::string map_published_gpu(const std::string& gpu_family, const std::string& gpu);

// Accelerators searched, nearest first, for a table `accelerator` has no rows for.
std::vector<std::string> sibling_order(const std::string& accelerator, const std::vector<hw::Accelerator>& all);

// Reads the CSVs under `kernels_dir` (an unknown or missing column is an error naming file,
// line and column) and the device calibration files (*.h5) under `measured_dir` (none if
// empty; the tables its anchors.yaml lists anchor the device a file names), fits and derives.
// `profile_dir` is where the files will be written (recorded as each profile's source).
PublishedImport import_published(const std::string& kernels_dir, const std::vector<hw::Accelerator>& accelerators,
                                 const std::vector<hw::System>& systems, const std::string& profile_dir,
                                 const std::string& measured_dir = "");

// Writes <dir>/<accelerator>.h5 (where it has measured rows) and <dir>/<accelerator>.yaml.
void write_published_import(const PublishedImport& r, const std::string& dir);

// Rows used and skipped per file (with reasons), unmapped gpus, and per accelerator the
// measured and derived tables.
std::string import_summary(const PublishedImport& r);

}  // namespace agentsim::calib
