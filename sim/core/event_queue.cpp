#include "sim/core/event_queue.hpp"

#include <algorithm>

namespace agentsim::core {

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
  heap_.push_back(Entry{time, next_seq_++, priority, slot, s.generation});
  std::push_heap(heap_.begin(), heap_.end(), Later{});
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
    std::pop_heap(heap_.begin(), heap_.end(), Later{});
    heap_.pop_back();
  }
}

Ticks EventQueue::next_time() {
  drop_dead_top();
  return heap_.empty() ? kTickMax : heap_.front().time;
}

std::optional<EventQueue::Fired> EventQueue::pop() {
  drop_dead_top();
  if (heap_.empty()) return std::nullopt;
  std::pop_heap(heap_.begin(), heap_.end(), Later{});
  const Entry e = heap_.back();
  heap_.pop_back();
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
