#include "workloads/claude_code_csv.hpp"

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
