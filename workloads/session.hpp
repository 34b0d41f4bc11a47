#pragma once
// An agent session: ordered turns, each a prompt (the whole context so far),
// an answer, and the gap (tool call or human) before the next turn.
#include <string>
#include <vector>

namespace agentsim::wl {

struct Turn {
  long long input_tokens = 0;   // whole prompt, cached prefix included
  long long output_tokens = 0;  // answer length
  double gap_after_s = 0;       // tool/human delay before the next turn is sent
};

struct Session {
  std::string id;          // e.g. "trace_0003/root/agent_001:Explore"
  std::vector<Turn> turns;
};

}  // namespace agentsim::wl
