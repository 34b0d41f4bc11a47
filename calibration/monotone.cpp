#include "calibration/monotone.hpp"

namespace agentsim::calib {

std::vector<double> isotonic_non_decreasing(const std::vector<double>& values, const std::vector<double>& weights) {
  struct Block {
    double mean, weight;
    std::size_t count;
  };
  std::vector<Block> blocks;
  for (std::size_t i = 0; i < values.size(); ++i) {
    blocks.push_back({values[i], weights[i], 1});
    while (blocks.size() > 1 && blocks[blocks.size() - 2].mean > blocks.back().mean) {
      const Block b = blocks.back();
      blocks.pop_back();
      Block& a = blocks.back();
      a.mean = (a.mean * a.weight + b.mean * b.weight) / (a.weight + b.weight);
      a.weight += b.weight;
      a.count += b.count;
    }
  }
  std::vector<double> out;
  for (const auto& b : blocks) out.insert(out.end(), b.count, b.mean);
  return out;
}

}  // namespace agentsim::calib
