#pragma once
// The interface the runner drives: a source of requests built from sessions
// (closed loop, open loop with recorded timestamps, Poisson session arrivals),
// and the replay of one session tree (a root session and its sub-agents).
#include <functional>
#include <vector>

#include "sim/core/simulator.hpp"
#include "sim/serving/request.hpp"
#include "sim/serving/request_sink.hpp"
#include "workloads/sessions/session.hpp"

namespace agentsim::serving {

class SessionDriver {
 public:
  virtual ~SessionDriver() = default;
  // Schedules the first submissions on the simulator.
  virtual void start() = 0;
  virtual long long turns_sent() const = 0;
  virtual long long turns_truncated() const = 0;
  // A finite replay (closed loop with a session limit): the time its last agent stopped, in
  // seconds; negative while it runs or when it never ends.
  virtual double finished_at_s() const { return -1; }
};

// The request for `t` sent by `agent`; prompts longer than `max_context_tokens` (> 0)
// are cut to fit as the benchmark does (keep the answer, cut the prompt). Sets `truncated`.
Request turn_request(const wl::Trace& trace, wl::TurnRef ref, int agent, long long max_context_tokens,
                     bool& truncated);

// Caps on the recorded gaps after a turn (< 0 = as recorded): human waits (end_turn), and tool
// gaps (which include permission prompts a person answers).
struct GapCaps {
  double human_s = -1;
  double tool_s = -1;
};

// The delay after `t` under the caps.
double replay_gap_s(const wl::Turn& t, const GapCaps& caps);

// Root sessions of `trace` (no spawn parent), in trace order: the pool replay draws from.
std::vector<std::size_t> root_sessions(const wl::Trace& trace);

// Plays session trees closed-loop: each turn waits for the previous answer and its gap.
// A sub-agent starts when the parent turn it follows finishes; the parent's next turn is
// sent once its own gap has passed AND every non-async child spawned after that turn has
// finished (whichever is later); async children run alongside. A session finishes with
// its last answer and its waited-for children; requests carry the tree's agent id.
class SessionTreePlayer {
 public:
  // `trace` must outlive the player.
  SessionTreePlayer(core::Simulator& sim, RequestSink& sink, const wl::Trace& trace, long long max_context_tokens,
                    GapCaps gap_caps);
  // Starts `session` at `first_turn` now (children of earlier turns are skipped);
  // `done` fires when it finished. Started past its first turn, the first request carries
  // its previous prompt as warm (Request::warm_prefix_tokens).
  void play(std::size_t session, std::size_t first_turn, int agent, std::function<void()> done);

  long long turns_sent() const { return sent_; }
  long long turns_truncated() const { return truncated_; }
  long long sessions_started() const { return sessions_started_; }

 private:
  struct Run {
    std::size_t session = 0;
    std::size_t turn = 0;
    int agent = -1;
    int pending_children = 0;  // waited-for children still running
    bool gap_pending = false;  // the gap after `turn` has not passed yet
    bool last_done = false;    // the last turn's answer arrived
    std::size_t parent = kNone;  // run to notify when this one finishes (kNone: none)
    std::function<void()> done;
    bool warm = false;  // started mid-session: the next request's previous prompt is warm
  };
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  std::size_t new_run(std::size_t session, std::size_t turn, int agent, std::size_t parent, std::function<void()> done);
  void send(std::size_t run);
  void on_answer(std::size_t run);
  void advance(std::size_t run);

  core::Simulator& sim_;
  RequestSink& sink_;
  const wl::Trace& trace_;
  long long max_context_tokens_;
  GapCaps gap_caps_;
  // children_[s]: (after_turn, child session) of every sub-agent of s, sorted.
  std::vector<std::vector<std::pair<std::int32_t, std::size_t>>> children_;
  std::vector<Run> runs_;           // slots, reused through free_ (lowest index last)
  std::vector<std::size_t> free_;
  long long sent_ = 0;
  long long truncated_ = 0;
  long long sessions_started_ = 0;
};

}  // namespace agentsim::serving
