#pragma once
// A fixed number of integer values with the position of their minimum kept
// current: set() is O(log n), argmin() O(1). Ties go to the lowest position, as
// a left-to-right scan for the first minimum would. A tournament tree over the
// values (leaves padded to a power of two with a value that never wins).
#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace agentsim::core {

class MinTree {
 public:
  // `n` values, all 0.
  explicit MinTree(std::size_t n = 0) { reset(n); }

  void reset(std::size_t n) {
    n_ = n;
    leaves_ = 1;
    while (leaves_ < n) leaves_ *= 2;
    value_.assign(n, 0);
    // winner_[1] is the root; leaf i sits at leaves_ + i. Padding leaves point past the values.
    winner_.assign(2 * leaves_, 0);
    for (std::size_t i = 0; i < leaves_; ++i) winner_[leaves_ + i] = static_cast<std::uint32_t>(i);
    for (std::size_t v = leaves_ - 1; v >= 1; --v) winner_[v] = pick(winner_[2 * v], winner_[2 * v + 1]);
  }

  std::size_t size() const { return n_; }
  long long value(std::size_t i) const { return value_[i]; }

  void set(std::size_t i, long long v) {
    if (value_[i] == v) return;
    value_[i] = v;
    for (std::size_t node = (leaves_ + i) / 2; node >= 1; node /= 2) {
      const std::uint32_t w = pick(winner_[2 * node], winner_[2 * node + 1]);
      if (winner_[node] == w && w != i) break;  // nothing above can change
      winner_[node] = w;
    }
  }

  // The lowest position holding the smallest value (size() must be > 0).
  std::size_t argmin() const { return winner_[1]; }

 private:
  // The winner of two positions: the smaller value, the lower position on a tie.
  std::uint32_t pick(std::uint32_t a, std::uint32_t b) const {
    if (b >= n_) return a;
    if (a >= n_) return b;
    return value_[b] < value_[a] ? b : a;  // a < b always (left child)
  }

  std::size_t n_ = 0, leaves_ = 1;
  std::vector<long long> value_;
  std::vector<std::uint32_t> winner_;
};

}  // namespace agentsim::core
