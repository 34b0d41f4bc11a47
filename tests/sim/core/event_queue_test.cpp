#include "sim/core/event_queue.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "sim/core/rng.hpp"

namespace agentsim::core {
namespace {

std::vector<std::string> drain(EventQueue& q) {
  std::vector<std::string> order;
  while (auto f = q.pop()) f->handler();
  return order;
}

TEST(EventQueue, OrdersByTimeThenPriorityThenInsertion) {
  EventQueue q;
  std::vector<std::string> log;
  q.schedule(20, 0, [&] { log.push_back("t20"); });
  q.schedule(10, 5, [&] { log.push_back("t10p5"); });
  q.schedule(10, -1, [&] { log.push_back("t10p-1"); });
  q.schedule(10, 5, [&] { log.push_back("t10p5-second"); });
  q.schedule(10, 0, [&] { log.push_back("t10p0"); });
  q.schedule(5, 100, [&] { log.push_back("t5"); });
  drain(q);
  EXPECT_EQ(log, (std::vector<std::string>{"t5", "t10p-1", "t10p0", "t10p5", "t10p5-second", "t20"}));
}

TEST(EventQueue, SameTimeSamePriorityIsFifoAtScale) {
  EventQueue q;
  std::vector<int> log;
  for (int i = 0; i < 1000; ++i) q.schedule(7, 0, [&log, i] { log.push_back(i); });
  while (auto f = q.pop()) f->handler();
  ASSERT_EQ(log.size(), 1000u);
  for (int i = 0; i < 1000; ++i) EXPECT_EQ(log[static_cast<std::size_t>(i)], i);
}

TEST(EventQueue, CancelledEventsNeverRun) {
  EventQueue q;
  std::vector<int> log;
  const EventId a = q.schedule(1, 0, [&] { log.push_back(1); });
  const EventId b = q.schedule(2, 0, [&] { log.push_back(2); });
  q.schedule(3, 0, [&] { log.push_back(3); });
  EXPECT_EQ(q.size(), 3u);
  EXPECT_TRUE(q.cancel(b));
  EXPECT_FALSE(q.cancel(b)) << "a second cancel must report nothing pending";
  EXPECT_FALSE(q.pending(b));
  EXPECT_TRUE(q.pending(a));
  EXPECT_EQ(q.size(), 2u);
  while (auto f = q.pop()) f->handler();
  EXPECT_EQ(log, (std::vector<int>{1, 3}));
  EXPECT_FALSE(q.cancel(a)) << "an event that ran cannot be cancelled";
}

TEST(EventQueue, CancelOfHeadUpdatesNextTime) {
  EventQueue q;
  const EventId a = q.schedule(1, 0, [] {});
  q.schedule(9, 0, [] {});
  EXPECT_EQ(q.next_time(), 1);
  q.cancel(a);
  EXPECT_EQ(q.next_time(), 9);
  q.pop();
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.next_time(), kTickMax);
}

TEST(EventQueue, ReusedSlotDoesNotResurrectOldId) {
  EventQueue q;
  const EventId a = q.schedule(1, 0, [] {});
  q.cancel(a);
  const EventId b = q.schedule(2, 0, [] {});  // likely reuses a's slot
  EXPECT_NE(a, b);
  EXPECT_FALSE(q.pending(a));
  EXPECT_FALSE(q.cancel(a));
  EXPECT_TRUE(q.pending(b));
}

// A running simulation's pattern: pops interleaved with schedules from nanoseconds to
// minutes ahead, a few cancellations and ties of time and priority. Every pop is the least pending event by (time, priority, insertion), checked
// against a sorted list of what is pending.
TEST(EventQueue, InterleavedSchedulesAndCancelsPopInTotalOrder) {
  EventQueue q;
  RngStream rng(7, "event-queue");
  using Key = std::tuple<Ticks, int, std::uint64_t>;  // (time, priority, insertion)
  std::vector<std::pair<Key, EventId>> pending;
  std::uint64_t seq = 0;
  Ticks now = 0;
  long long popped = 0;
  auto add = [&] {
    // Ahead by 0 .. ~100 s on a log scale, often exactly tying an earlier time.
    const Ticks dt = rng.uniform_index(4) == 0 ? 0 : static_cast<Ticks>(rng.uniform_index(std::uint64_t{1} << (rng.uniform_index(37) + 1)));
    const Ticks t = now + dt;
    const int priority = static_cast<int>(rng.uniform_index(3)) - 1;
    const Key key{t, priority, seq++};
    pending.emplace_back(key, q.schedule(t, priority, [] {}));
  };
  for (int i = 0; i < 2000; ++i) add();
  for (int i = 0; i < 20000; ++i) {
    if (rng.uniform_index(10) == 0 && !pending.empty()) {  // cancel one
      const std::size_t k = rng.uniform_index(pending.size());
      ASSERT_TRUE(q.cancel(pending[k].second));
      pending.erase(pending.begin() + static_cast<std::ptrdiff_t>(k));
    }
    const auto least = std::min_element(pending.begin(), pending.end());
    ASSERT_EQ(q.next_time(), std::get<0>(least->first));
    const auto f = q.pop();
    ASSERT_TRUE(f.has_value());
    ASSERT_EQ(f->time, std::get<0>(least->first));
    ASSERT_FALSE(q.pending(least->second)) << "pop " << popped << " ran another event than the least";
    now = f->time;
    pending.erase(least);
    ++popped;
    const int adds = static_cast<int>(rng.uniform_index(3));  // 0, 1 or 2: the queue breathes
    for (int a = 0; a < adds; ++a) add();
    if (pending.empty()) add();
  }
  EXPECT_EQ(q.size(), pending.size());
}

}  // namespace
}  // namespace agentsim::core
