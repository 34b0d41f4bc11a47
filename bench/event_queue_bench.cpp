// Event-queue throughput: schedule N events at random times, then pop them all.
#include <benchmark/benchmark.h>

#include "sim/core/event_queue.hpp"
#include "sim/core/rng.hpp"

namespace {

using agentsim::core::EventQueue;
using agentsim::core::RngStream;

void BM_ScheduleThenPop(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  std::vector<agentsim::core::Ticks> times(n);
  RngStream rng(1, "bench");
  for (auto& t : times) t = static_cast<agentsim::core::Ticks>(rng.uniform_index(1'000'000'000'000ULL));
  std::uint64_t sink = 0;
  for (auto _ : state) {
    EventQueue q;
    for (std::size_t i = 0; i < n; ++i) q.schedule(times[i], 0, [&sink] { ++sink; });
    while (auto f = q.pop()) f->handler();
  }
  benchmark::DoNotOptimize(sink);
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * n));
}
BENCHMARK(BM_ScheduleThenPop)->Arg(1'000'000)->Unit(benchmark::kMillisecond);

// Steady state: a queue holding N pending events, each pop schedules one more
// (the pattern of a running simulation).
void BM_HoldModel(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  EventQueue q;
  RngStream rng(2, "hold");
  for (std::size_t i = 0; i < n; ++i) q.schedule(static_cast<agentsim::core::Ticks>(rng.uniform_index(1'000'000)), 0, [] {});
  for (auto _ : state) {
    auto f = q.pop();
    q.schedule(f->time + static_cast<agentsim::core::Ticks>(rng.uniform_index(1'000'000)), 0, [] {});
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_HoldModel)->Arg(1'000)->Arg(100'000);

}  // namespace

BENCHMARK_MAIN();
