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
// then a check only). Read with core::YamlNode: a core::Error names anchors.yaml, line and key
// for a top level that is not a mapping, a key that is not a calibration file (*.h5) in `dir`, a
// value that is not a list, or an unknown family.
std::map<std::string, std::vector<std::string>> load_device_run_anchors(const std::string& dir);

}  // namespace agentsim::calib
