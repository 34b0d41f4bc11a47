#pragma once
// Runs fn(i) for i in [0, n) on up to `threads` worker threads. Each index runs
// exactly once; callers store results by index, so output order (and content,
// for independent tasks) never depends on the thread count. The first
// exception thrown by any task is rethrown after all workers stop.
#include <cstddef>
#include <functional>

namespace agentsim::core {

void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

}  // namespace agentsim::core
