#include "sim/core/event_queue.hpp"

#include <algorithm>
#include <string>

#include "sim/core/error.hpp"

namespace agentsim::core {
namespace {
constexpr std::size_t kArity = 4;  // a 4-ary heap: half the levels of a binary one, same cache lines
constexpr int kPriorityBias = 1 << 15;
constexpr std::uint64_t kSeqMask = (std::uint64_t{1} << 48) - 1;
}  // namespace

void EventQueue::sift_up(std::size_t i) {
  const Entry e = heap_[i];
  while (i > 0) {
    const std::size_t parent = (i - 1) / kArity;
    if (!before(e, heap_[parent])) break;
    heap_[i] = heap_[parent];
    i = parent;
  }
  heap_[i] = e;
}

void EventQueue::sift_down(std::size_t i) {
  const Entry e = heap_[i];
  const std::size_t n = heap_.size();
  for (;;) {
    const std::size_t first = i * kArity + 1;
    if (first >= n) break;
    std::size_t best = first;
    const std::size_t last = std::min(first + kArity, n);
    for (std::size_t c = first + 1; c < last; ++c) {
      if (before(heap_[c], heap_[best])) best = c;
    }
    if (!before(heap_[best], e)) break;
    heap_[i] = heap_[best];
    i = best;
  }
  heap_[i] = e;
}

void EventQueue::pop_top() {
  heap_.front() = heap_.back();
  heap_.pop_back();
  if (!heap_.empty()) sift_down(0);
}

EventId EventQueue::schedule(Ticks time, int priority, Handler handler) {
  std::uint32_t slot;
  if (!free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(slots_.size());
    slots_.emplace_back();
  }
  Slot& s = slots_[slot];
  s.handler = std::move(handler);
  s.live = true;
  if (priority < -kPriorityBias || priority >= kPriorityBias || next_seq_ > kSeqMask) {
    throw Error("event priority " + std::to_string(priority) + " outside [-32768, 32767] or sequence exhausted");
  }
  const std::uint64_t order = (static_cast<std::uint64_t>(priority + kPriorityBias) << 48) | next_seq_++;
  heap_.push_back(Entry{time, order, slot, s.generation});
  sift_up(heap_.size() - 1);
  ++live_;
  return make_id(slot, s.generation);
}

bool EventQueue::pending(EventId id) const {
  if (id == 0) return false;
  const auto slot = static_cast<std::uint32_t>((id & 0xffffffffu) - 1);
  const auto gen = static_cast<std::uint32_t>(id >> 32);
  return slot < slots_.size() && slots_[slot].live && slots_[slot].generation == gen;
}

bool EventQueue::cancel(EventId id) {
  if (!pending(id)) return false;
  const auto slot = static_cast<std::uint32_t>((id & 0xffffffffu) - 1);
  Slot& s = slots_[slot];
  s.live = false;
  s.handler = nullptr;
  ++s.generation;  // the heap entry now carries a stale generation
  free_slots_.push_back(slot);
  --live_;
  return true;
}

void EventQueue::drop_dead_top() {
  while (!heap_.empty()) {
    const Entry& top = heap_.front();
    const Slot& s = slots_[top.slot];
    if (s.live && s.generation == top.generation) return;
    pop_top();
  }
}

Ticks EventQueue::next_time() {
  drop_dead_top();
  return heap_.empty() ? kTickMax : heap_.front().time;
}

std::optional<EventQueue::Fired> EventQueue::pop() {
  drop_dead_top();
  if (heap_.empty()) return std::nullopt;
  const Entry e = heap_.front();
  pop_top();
  Slot& s = slots_[e.slot];
  Fired fired{e.time, std::move(s.handler)};
  s.handler = nullptr;
  s.live = false;
  ++s.generation;
  free_slots_.push_back(e.slot);
  --live_;
  return fired;
}

}  // namespace agentsim::core
