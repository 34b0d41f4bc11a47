#include "sim/core/event_queue.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace agentsim::core
