#pragma once
// An agent session: ordered turns, each a prompt (the whole context so far),
// an answer, and the gap (tool call or human) before the next turn. Prompts
// are described as block-hash sequences stored compactly as a prefix link to
// an earlier turn plus runs of new block ids (see docs/trace-format.md).
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace agentsim::wl {

// What the client did between a turn's answer and the next prompt.
enum class GapKind : std::uint8_t { kNone, kTool, kHuman };
// Why the model stopped answering (as recorded; kUnknown when not recorded).
enum class StopReason : std::uint8_t { kUnknown, kToolUse, kEndTurn, kMaxTokens, kOther };

// A turn of a trace: `session` indexes Trace::sessions, `turn` that session's turns.
struct TurnRef {
  std::int32_t session = -1;  // -1 = none
  std::int32_t turn = -1;
  bool valid() const { return session >= 0; }
  friend bool operator==(const TurnRef&, const TurnRef&) = default;
};

// A run of consecutive block ids [first, first + count).
struct BlockRun {
  std::uint64_t first = 0;
  std::uint32_t count = 0;
  friend bool operator==(const BlockRun&, const BlockRun&) = default;
};

struct Turn {
  Turn() = default;
  Turn(long long in, long long out, double gap_s) : input_tokens(in), output_tokens(out), gap_after_s(gap_s) {}

  long long input_tokens = 0;   // whole prompt, cached prefix included
  long long output_tokens = 0;  // answer length
  double gap_after_s = 0;       // tool/human delay before the next turn is sent
  GapKind gap_kind = GapKind::kNone;
  StopReason stop = StopReason::kUnknown;
  bool prefix_break = false;  // compaction / context reset: the prompt drops most of the previous context
  bool truncated = false;     // cut to a context limit (workloads/sessions/context_limit.hpp)

  // Prompt blocks = first `prefix_blocks` blocks of `prefix_parent`'s prompt, then the
  // ids of Session::block_runs[runs_begin, runs_end). Without block data all are 0.
  TurnRef prefix_parent;
  std::int32_t prefix_blocks = 0;
  std::uint32_t runs_begin = 0;
  std::uint32_t runs_end = 0;

  // Recorded timings, for open-loop replay and validation only (< 0 = not recorded).
  double t_s = -1;         // send time after the session's start
  double api_time_s = -1;  // server time of the recorded answer
  double ttft_s = -1;
};

// A child session (sub-agent) spawned after one of its parent's turns.
struct SpawnLink {
  std::int32_t parent_session = -1;  // index into Trace::sessions; -1 = a root session
  std::int32_t after_turn = -1;      // the parent turn after which the child starts
  bool async = false;                // false: the parent's next turn waits for this child
};

struct Session {
  Session() = default;
  Session(std::string session_id, std::vector<Turn> session_turns)
      : id(std::move(session_id)), turns(std::move(session_turns)) {}

  std::string id;  // e.g. "trace_0003/root/agent_001:Explore"
  std::vector<Turn> turns;
  std::vector<BlockRun> block_runs;  // new-block id runs of every turn, in turn order
  SpawnLink spawn;                   // parent link for sub-agents
  std::int32_t root = -1;            // index of the root of the session's tree (its own index for a root)
  double start_s = 0;                // recorded arrival of the first turn (open-loop replay)

  long long new_blocks(const Turn& t) const {
    long long n = 0;
    for (auto i = t.runs_begin; i < t.runs_end; ++i) n += block_runs[i].count;
    return n;
  }
};

// A whole trace: immutable once built and shared by every agent replaying it.
struct Trace {
  std::string name;
  int block_size_tokens = 0;          // 0 = no block data
  bool global_block_ids = false;      // ids compare across session trees (else only within one)
  // With global ids: ids from here up are a session's own (a generated session's turns), which
  // compare only within one replay of its tree, so two agents replaying one session do not share
  // them; ids below are shared by every replay (a generator's system prompt and repositories).
  // The largest id (the default): every id shared, as in a trace of real requests (Mooncake).
  std::uint64_t replay_block_ids_from = kAllBlockIdsShared;
  static constexpr std::uint64_t kAllBlockIdsShared = ~std::uint64_t{0};
  std::vector<Session> sessions;

  std::size_t turn_count() const;
  // Full block-id sequence of a turn's prompt (follows the prefix links).
  std::vector<std::uint64_t> block_ids(TurnRef ref) const;
  // Length of that sequence, and its id at position i (< length), without building it.
  std::size_t prompt_blocks(TurnRef ref) const;
  std::uint64_t block_id(TurnRef ref, std::size_t i) const;
};

// Sets gap kinds from stop reasons (end_turn -> human, otherwise tool; none after the
// last turn) and marks prefix breaks: a prompt under half the previous one.
void annotate_turns(Session& s);

const char* to_string(GapKind k);
StopReason parse_stop_reason(const std::string& s);
const char* to_string(StopReason s);

}  // namespace agentsim::wl
