#include "workloads/sessions/claude_code_csv.hpp"

#include <gtest/gtest.h>

#include <sstream>

#include "sim/core/error.hpp"

namespace agentsim::wl {
namespace {

constexpr const char* kHeader =
    "trace_id,agent_path,req_idx,t_s,type,model,in_tokens,out_tokens,n_blocks,lcp_blocks,lcp_parent_req,"
    "new_blocks,prefix_tree_ok,api_time_s,think_time_s,ttft_s,stop,output_types\n";

TEST(ClaudeCodeCsv, GroupsBySessionAndTakesGapsFromTheNextRequest) {
  // Block counts agree with lengths at 64 tokens per block: 3072 tokens = 48 full blocks.
  std::istringstream in(std::string(kHeader) +
                        "t1,root,1,19.0,n,m,2000,300,32,0,,32,1,9.0,12.0,,tool_use,text\n"
                        "t1,root,0,0.0,n,m,1000,100,16,0,,16,1,7.0,0.0,,tool_use,text\n"
                        "t1,root/agent_001:Explore,0,3.0,n,m,500,50,8,0,,8,1,2.0,0.0,,tool_use,text\n"
                        // 48 blocks of 64 tokens need at least 47 * 64 + 1 = 3009 prompt tokens (was 3000).
                        "t1,root,2,40.0,n,m,3072,0,48,32,root#1,16,1,8.0,8.5,,end_turn,text\n");
  const auto sessions = read_claude_code_csv(in, "x.csv");
  ASSERT_EQ(sessions.size(), 2u);
  EXPECT_EQ(sessions[0].id, "t1/root");
  ASSERT_EQ(sessions[0].turns.size(), 3u);
  EXPECT_EQ(sessions[0].turns[0].input_tokens, 1000);  // sorted by req_idx
  EXPECT_DOUBLE_EQ(sessions[0].turns[0].gap_after_s, 12.0);
  EXPECT_DOUBLE_EQ(sessions[0].turns[1].gap_after_s, 8.5);
  EXPECT_DOUBLE_EQ(sessions[0].turns[2].gap_after_s, 0.0);
  EXPECT_EQ(sessions[0].turns[2].output_tokens, 1) << "an empty answer still emits one token";
  EXPECT_EQ(sessions[1].id, "t1/root/agent_001:Explore");
}

TEST(ClaudeCodeCsv, MalformedFieldNamesFileLineAndColumn) {
  std::istringstream in(std::string(kHeader) + "t1,root,0,0.0,n,m,1000,100,16,0,,16,1,7.0,0.0,,tool_use,text\n" +
                        "t1,root,1,0.0,n,m,lots,100,16,0,,16,1,7.0,0.0,,tool_use,text\n");
  try {
    read_claude_code_csv(in, "x.csv");
    FAIL();
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(), "x.csv:3: in_tokens: expected an integer, found 'lots'");
  }
}

// Found while writing fuzz_claude_code_csv (inputs in tests/fuzz/regressions/claude_code_csv/):
// a row naming itself (or a later row) as prefix parent made Trace::block_ids recurse until
// the stack overflowed; 4e9 new_blocks expanded into 4e9 ids; a req_idx near 1e15 made the
// spawn-point search enumerate every missing index. Each is now a located error.
std::string csv_error(const std::string& rows) {
  std::istringstream in(std::string(kHeader) + rows);
  try {
    read_claude_code_csv_trace(in, "x.csv");
  } catch (const core::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(ClaudeCodeCsv, PrefixParentsMustBeEarlierRowsAndBlocksFitThePrompt) {
  EXPECT_EQ(csv_error("t,root,0,0.0,n,m,100,5,2,1,root#0,1,1,1.0,0.0,,tool_use,text\n"),
            "x.csv:2: lcp_parent_req: prefix parent 'root#0' is not an earlier request of this trace");
  EXPECT_EQ(csv_error("t,root,0,0.0,n,m,100,5,2,1,root#1,1,1,1.0,0.0,,tool_use,text\n"
                      "t,root,1,0.0,n,m,100,5,2,0,,2,1,1.0,0.0,,tool_use,text\n"),
            "x.csv:2: lcp_parent_req: prefix parent 'root#1' is not an earlier request of this trace");
  // ceil(100 / 64) = 2 blocks at most.
  EXPECT_EQ(csv_error("t,root,0,0.0,n,m,100,5,3,0,,3,1,1.0,0.0,,tool_use,text\n"),
            "x.csv:2: new_blocks: lcp_blocks + new_blocks = 3 blocks of 64 tokens exceed in_tokens 100");
  EXPECT_EQ(csv_error("t,root,0,0.0,n,m,100,5,4000000000,0,,4000000000,1,1.0,0.0,,tool_use,text\n"),
            "x.csv:2: new_blocks: lcp_blocks + new_blocks = 4000000000 blocks of 64 tokens exceed in_tokens 100");
  // The parent's prompt has 1 block; sharing 2 of it is impossible.
  EXPECT_EQ(csv_error("t,root,0,0.0,n,m,64,5,1,0,,1,1,1.0,0.0,,tool_use,text\n"
                      "t,root,1,0.0,n,m,200,5,4,2,root#0,1,1,1.0,0.0,,tool_use,text\n"),
            "x.csv:3: lcp_blocks: shares 2 blocks but prefix parent 'root#0' has only 1");
  EXPECT_EQ(csv_error("t,root,0,0.0,n,m,64,5,1,0,,1,1,1.0,0.0,,tool_use,text\n"
                      "t,root,1,0.0,n,m,200,5,4,1,root#0,3,1,1.0,0.0,,tool_use,text\n"),
            "no error");
}

TEST(ClaudeCodeCsv, HugeRequestIndexIsAnErrorNotAHang) {
  EXPECT_EQ(csv_error("t,root,999999999999999,0.0,n,m,100,5,1,0,,1,1,1.0,0.0,,tool_use,text\n"),
            "x.csv:2: req_idx: expected an index in [0, 1000000000]");
  // Within the bound, a parent whose only row has req_idx 1e9 spawns its child at the first gap
  // (index 0) without listing the other 1e9 - 1 missing indices.
  std::istringstream in(std::string(kHeader) +
                        "t,root,1000000000,0.0,n,m,100,5,1,0,,1,1,1.0,0.0,,tool_use,text\n"
                        "t,root/agent_1:Explore,0,0.0,n,m,100,5,1,0,,1,1,1.0,0.0,,tool_use,text\n");
  const Trace t = read_claude_code_csv_trace(in, "x.csv");
  ASSERT_EQ(t.sessions.size(), 2u);
  EXPECT_EQ(t.sessions[1].spawn.parent_session, 0);
  EXPECT_EQ(t.sessions[1].spawn.after_turn, -1);  // before the parent's only turn
}

TEST(ClaudeCodeCsv, TheShippedSampleLoads) {
  const auto sessions =
      load_claude_code_csv(std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces/claude-code-sample/requests.csv");
  long long turns = 0;
  for (const auto& s : sessions) turns += static_cast<long long>(s.turns.size());
  EXPECT_EQ(turns, 5541);  // rows of the sample, per its PROVENANCE.md
  EXPECT_GT(sessions.size(), 96u) << "sub-agents are sessions of their own";
}

TEST(ClaudeCodeCsv, MissingFileIsAnError) {
  EXPECT_THROW(load_claude_code_csv("/nonexistent/requests.csv"), core::Error);
}

}  // namespace
}  // namespace agentsim::wl
