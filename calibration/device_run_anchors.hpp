#pragma once
// Which tables of this repository's device runs (calibration files written on a real GPU, under
// calibration/data/measured/) anchor the shipped profiles: plain data in that folder's
// anchors.yaml, file name -> kernel families. A table anchors where its microbenchmark is the
// kernel a serving engine runs on that device; every other table of a run stays a check.
#include <map>
#include <string>
#include <vector>

namespace agentsim::calib {

// <dir>/anchors.yaml as file name -> families; empty where the file does not exist (every run is
// then a check only). Throws core::Error naming anchors.yaml, line and key for a file that is not
// a calibration file (*.h5) in `dir`, an unknown family or anything but a list of names.
std::map<std::string, std::vector<std::string>> load_device_run_anchors(const std::string& dir);

}  // namespace agentsim::calib
