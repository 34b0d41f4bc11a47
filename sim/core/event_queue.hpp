#pragma once
// A priority queue of callbacks with a total, deterministic order: earlier time
// first, then lower priority value, then earlier insertion. Cancellation is O(1)
// (lazy: a cancelled entry is skipped when it reaches the top).
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "sim/core/time.hpp"

namespace agentsim::core {

// Opaque handle of a scheduled event; 0 is never a valid id.
using EventId = std::uint64_t;

class EventQueue {
 public:
  using Handler = std::function<void()>;

  struct Fired {
    Ticks time;
    Handler handler;
  };

  // Schedules `handler` at `time`; lower `priority` runs first among equal times.
  EventId schedule(Ticks time, int priority, Handler handler);
  // Cancels a pending event; returns false if it already ran or was cancelled.
  bool cancel(EventId id);
  bool pending(EventId id) const;

  bool empty() const { return live_ == 0; }
  std::size_t size() const { return live_; }
  // Time of the next live event; kTickMax when empty.
  Ticks next_time();
  // Removes and returns the next live event; nullopt when empty.
  std::optional<Fired> pop();

 private:
  // Heap entry. `order` packs (priority + 2^15) in the top 16 bits over a
  // 48-bit insertion sequence, so (time, order) compares as (time, priority, seq).
  struct Entry {
    Ticks time;
    std::uint64_t order;
    std::uint32_t slot;
    std::uint32_t generation;
  };
  static bool before(const Entry& a, const Entry& b) {
    return a.time != b.time ? a.time < b.time : a.order < b.order;
  }
  struct Slot {
    Handler handler;
    std::uint32_t generation = 1;
    bool live = false;
  };

  void drop_dead_top();
  void sift_up(std::size_t i);
  void sift_down(std::size_t i);
  void pop_top();
  static EventId make_id(std::uint32_t slot, std::uint32_t gen) {
    return (static_cast<EventId>(gen) << 32) | (static_cast<EventId>(slot) + 1);
  }

  std::vector<Entry> heap_;
  std::vector<Slot> slots_;
  std::vector<std::uint32_t> free_slots_;
  std::uint64_t next_seq_ = 0;
  std::size_t live_ = 0;
};

}  // namespace agentsim::core
