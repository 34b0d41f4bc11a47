#include "sim/core/simulator.hpp"

#include <string>

#include "sim/core/error.hpp"

namespace agentsim::core {

EventId Simulator::at(Ticks t, Handler h, int priority) {
  if (t < now_) {
    throw Error("event scheduled in the past: at tick " + std::to_string(t) + ", now " +
                std::to_string(now_));
  }
  return queue_.schedule(t, priority, std::move(h));
}

EventId Simulator::after(Ticks dt, Handler h, int priority) {
  if (dt < 0) throw Error("negative delay " + std::to_string(dt) + " ticks");
  const Ticks t = (dt > kTickMax - now_) ? kTickMax : now_ + dt;
  return queue_.schedule(t, priority, std::move(h));
}

bool Simulator::step_one() {
  auto fired = queue_.pop();
  if (!fired) return false;
  now_ = fired->time;
  ++events_run_;
  fired->handler();
  return true;
}

std::uint64_t Simulator::run_until(Ticks until) {
  stop_requested_ = false;
  const std::uint64_t start = events_run_;
  while (!stop_requested_ && queue_.next_time() <= until) step_one();
  if (!stop_requested_ && until > now_) now_ = until;
  return events_run_ - start;
}

std::uint64_t Simulator::run_until_idle() {
  stop_requested_ = false;
  const std::uint64_t start = events_run_;
  while (!stop_requested_ && step_one()) {
  }
  return events_run_ - start;
}

std::uint64_t Simulator::run_while(const std::function<bool()>& keep_going) {
  stop_requested_ = false;
  const std::uint64_t start = events_run_;
  while (!stop_requested_ && keep_going() && step_one()) {
  }
  return events_run_ - start;
}

}  // namespace agentsim::core
