#pragma once
// The event loop: a clock and an EventQueue, with stop rules. It knows nothing
// of what the events mean.
#include <cstdint>
#include <functional>

#include "sim/core/event_queue.hpp"
#include "sim/core/time.hpp"

namespace agentsim::core {

class Simulator {
 public:
  using Handler = EventQueue::Handler;

  Ticks now() const { return now_; }
  double now_s() const { return to_seconds(now_); }

  // Schedules at absolute time `t` (must be >= now(), else throws Error).
  EventId at(Ticks t, Handler h, int priority = 0);
  // Schedules `dt` ticks from now (dt >= 0).
  EventId after(Ticks dt, Handler h, int priority = 0);
  bool cancel(EventId id) { return queue_.cancel(id); }
  bool pending(EventId id) const { return queue_.pending(id); }

  // Runs every event with time <= until, then sets the clock to `until`
  // (unless stopped earlier). Returns the number of events run.
  std::uint64_t run_until(Ticks until);
  // Runs until no event is left (or stop()).
  std::uint64_t run_until_idle();
  // Runs while `keep_going()` holds, checked before each event.
  std::uint64_t run_while(const std::function<bool()>& keep_going);
  // Makes the running loop return after the current event.
  void stop() { stop_requested_ = true; }

  std::uint64_t events_run() const { return events_run_; }
  std::size_t events_pending() const { return queue_.size(); }

 private:
  bool step_one();
  EventQueue queue_;
  Ticks now_ = 0;
  std::uint64_t events_run_ = 0;
  bool stop_requested_ = false;
};

}  // namespace agentsim::core
