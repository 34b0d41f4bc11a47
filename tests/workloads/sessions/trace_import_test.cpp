// Importers against the real traces vendored in workloads/traces (full copies and
// samples); expected counts and hit rates come from the PROVENANCE.md files beside
// the data.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/core/error.hpp"
#include "workloads/sessions/azure_csv.hpp"
#include "workloads/sessions/claude_code_csv.hpp"
#include "workloads/sessions/claude_code_json.hpp"
#include "workloads/sessions/mooncake_jsonl.hpp"
#include "workloads/sessions/trace_formats.hpp"
#include "workloads/sessions/trace_jsonl.hpp"
#include "workloads/sessions/trace_stats.hpp"

namespace agentsim::wl {
namespace {

const std::string kData = std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces";  // vendored full traces (PROVENANCE.md beside each)
const std::string kSamples = std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces";

TEST(TraceImport, ClaudeCodeCsvReproducesTheProvenanceFigures) {
  const Trace t = load_trace("", kData + "/claude-code/requests.csv");
  const TraceStats s = compute_stats(t);
  EXPECT_EQ(s.turns, 49334);          // requests.csv rows
  EXPECT_EQ(s.root_sessions, 710);    // traces_summary.csv rows
  EXPECT_NEAR(s.hit_in_session, 0.963, 0.0005);  // sum min(lcp*64, in) / sum in, 96.3 %
  EXPECT_EQ(s.hit_global, s.hit_in_session) << "ids are per trace, so nothing is shared across traces";
}

TEST(TraceImport, MooncakeReproducesTheProvenanceHitRates) {
  const TraceStats conv = compute_stats(load_trace("mooncake", kData + "/mooncake/conversation_trace.jsonl"));
  EXPECT_EQ(conv.turns, 12031);
  EXPECT_NEAR(conv.hit_global, 0.374, 0.0005);  // PROVENANCE: 37.4 % of input tokens
  EXPECT_EQ(conv.unique_blocks, 182790);        // PROVENANCE: 182,790 unique blocks
  EXPECT_NEAR(conv.span_s, 3537, 0.5);
  const TraceStats syn = compute_stats(load_trace("", kData + "/mooncake/synthetic_trace.jsonl"));
  EXPECT_EQ(syn.turns, 3993);
  EXPECT_NEAR(syn.hit_global, 0.651, 0.0005);   // PROVENANCE: 65.1 %
  EXPECT_EQ(syn.unique_blocks, 43924);
}

TEST(TraceImport, AzureCountsAndMeans) {
  const TraceStats code = compute_stats(load_trace("", kData + "/azure/AzureLLMInferenceTrace_code.csv"));
  EXPECT_EQ(code.turns, 8819);
  EXPECT_NEAR(code.input.mean, 2048, 0.5);  // PROVENANCE: input mean 2,048, median 1,469
  EXPECT_DOUBLE_EQ(code.input.p50, 1469);
  EXPECT_NEAR(code.span_s, 3436, 1);        // 8,819 requests over 3,436 s
  EXPECT_LT(code.hit_global, 0) << "no block data";
  const TraceStats conv = compute_stats(load_trace("azure", kData + "/azure/AzureLLMInferenceTrace_conv.csv"));
  EXPECT_EQ(conv.turns, 19366);
  EXPECT_DOUBLE_EQ(conv.input.p50, 1020);   // PROVENANCE: median 1,020; output median 129
  EXPECT_DOUBLE_EQ(conv.output.p50, 129);
}

// Every vendored raw JSON file must import to the same sessions as its rows of the
// prefix-tree CSV: tokens, gaps, stops, prefix links (by session id and turn) and
// new-block counts, and the sub-agent spawn points. Block ids differ (relabelled).
// (The 74-file check against shared/data is bench/shared_data_check, optional.)
TEST(TraceImport, RawJsonAndCsvImportToTheSameSessions) {
  std::vector<std::string> files;
  for (const char* dir : {"/claude-code/raw", "/claude-code-raw-sample"}) {
    for (const auto& e : std::filesystem::directory_iterator(kData + dir)) {
      if (e.path().extension() == ".json") files.push_back(e.path().string());
    }
  }
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return std::filesystem::path(a).filename() < std::filesystem::path(b).filename();
  });
  ASSERT_EQ(files.size(), 14u);  // PROVENANCE: 12 raw files + the 2 of the raw sample
  const Trace json = load_claude_code_json(files);
  const Trace csv = load_claude_code_csv_trace(kData + "/claude-code/requests.csv");
  std::map<std::string, std::size_t> csv_index;
  for (std::size_t i = 0; i < csv.sessions.size(); ++i) csv_index[csv.sessions[i].id] = i;
  auto id_of = [](const Trace& t, std::int32_t s) { return s < 0 ? std::string() : t.sessions[static_cast<std::size_t>(s)].id; };
  long long turns = 0, subagents = 0;
  for (const Session& js : json.sessions) {
    auto it = csv_index.find(js.id);
    ASSERT_NE(it, csv_index.end()) << js.id;
    const Session& cs = csv.sessions[it->second];
    ASSERT_EQ(js.turns.size(), cs.turns.size()) << js.id;
    EXPECT_EQ(id_of(json, js.spawn.parent_session), id_of(csv, cs.spawn.parent_session)) << js.id;
    EXPECT_EQ(js.spawn.after_turn, cs.spawn.after_turn) << js.id;
    subagents += js.spawn.parent_session >= 0 ? 1 : 0;
    for (std::size_t k = 0; k < js.turns.size(); ++k) {
      const Turn& a = js.turns[k];
      const Turn& b = cs.turns[k];
      ++turns;
      ASSERT_EQ(a.input_tokens, b.input_tokens) << js.id << " turn " << k;
      ASSERT_EQ(a.output_tokens, b.output_tokens);
      ASSERT_DOUBLE_EQ(a.gap_after_s, b.gap_after_s);
      ASSERT_EQ(a.stop, b.stop);
      ASSERT_EQ(a.prefix_blocks, b.prefix_blocks) << js.id << " turn " << k;
      ASSERT_EQ(js.new_blocks(a), cs.new_blocks(b));
      ASSERT_EQ(id_of(json, a.prefix_parent.session), id_of(csv, b.prefix_parent.session)) << js.id << " turn " << k;
      ASSERT_EQ(a.prefix_parent.turn, b.prefix_parent.turn);
    }
  }
  EXPECT_EQ(turns, 147);    // PROVENANCE: 147 requests (counted with Python's json module)
  EXPECT_EQ(subagents, 2);  // PROVENANCE: 2 sub-agents (both in trace_0291)
}

TEST(TraceImport, ShippedRawSampleHasNestedSubagents) {
  const Trace t = load_trace("claude-code-json", kSamples + "/claude-code-raw-sample");
  // trace_0026 (1 session) then trace_0291: root + agent_001:Explore + agent_002:Explore.
  ASSERT_EQ(t.sessions.size(), 4u);
  EXPECT_EQ(t.sessions[2].id, "trace_0291/root/agent_001:Explore");
  EXPECT_EQ(t.sessions[2].spawn.parent_session, 1);
  EXPECT_EQ(t.sessions[2].spawn.after_turn, 15);  // after root request 15 (markers are entries 16, 17)
  EXPECT_EQ(t.sessions[3].spawn.after_turn, 15);
  EXPECT_EQ(t.sessions[1].turns.size(), 20u);     // 22 entries less 2 markers
  // agent_002's first prompt shares 174 of agent_001's first 177 blocks (requests.csv row).
  EXPECT_EQ(t.sessions[3].turns[0].prefix_parent, (TurnRef{2, 0}));
  EXPECT_EQ(t.sessions[3].turns[0].prefix_blocks, 174);
  const auto ids = t.block_ids(TurnRef{3, 0});
  EXPECT_EQ(ids.size(), 177u);
}

TEST(TraceImport, ShippedSamplesLoadWithDetectedFormats) {
  EXPECT_EQ(detect_trace_format(kSamples + "/mooncake-sample/conversation_trace_head300.jsonl"), "mooncake");
  EXPECT_EQ(detect_trace_format(kSamples + "/azure-sample/code_head300.csv"), "azure");
  EXPECT_EQ(detect_trace_format(kSamples + "/claude-code-sample/requests.csv"), "claude-code-csv");
  EXPECT_EQ(load_trace("", kSamples + "/mooncake-sample/conversation_trace_head300.jsonl").sessions.size(), 300u);
  EXPECT_EQ(load_trace("", kSamples + "/azure-sample/code_head300.csv").sessions.size(), 300u);
}

// The Claude Code sample saved with a UTF-8 byte-order mark (as spreadsheets save CSV) is detected
// and loads the same sessions; it was "cannot tell the trace format from the first line".
TEST(TraceImport, ACsvWithAByteOrderMarkLoadsAsWithout) {
  const std::string plain = kSamples + "/claude-code-sample/requests.csv";
  const std::filesystem::path bom = std::filesystem::temp_directory_path() / "agentsim_trace_bom.csv";
  {
    std::ifstream src(plain, std::ios::binary);
    std::ofstream dst(bom, std::ios::binary);
    dst << "\xEF\xBB\xBF" << src.rdbuf();
  }
  EXPECT_EQ(detect_trace_format(bom.string()), "claude-code-csv");
  EXPECT_EQ(load_trace("", bom.string()).sessions.size(), load_trace("", plain).sessions.size());
  std::filesystem::remove(bom);
}

TEST(TraceImport, MalformedMooncakeLineNamesFileLineAndField) {
  std::istringstream in(
      "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0, 1]}\n"
      "{\"timestamp\": 10, \"input_length\": \"many\", \"output_length\": 5, \"hash_ids\": [0]}\n"
      "{\"timestamp\": 20, \"input_length\": 100, \"output_length\": 5}\n");
  try {
    read_mooncake_jsonl(in, "m.jsonl");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(), "m.jsonl:2: input_length: expected an integer, found \"many\"");
  }
}

TEST(TraceImport, SkipBadSkipsAndCountsMalformedLines) {
  std::istringstream in(
      "{\"timestamp\": 0, \"input_length\": 600, \"output_length\": 5, \"hash_ids\": [0, 1]}\n"
      "{\"timestamp\": 10, \"input_length\": \"many\", \"output_length\": 5, \"hash_ids\": [0]}\n"
      "{\"timestamp\": 20, \"input_length\": 100, \"output_length\": 5}\n"
      "not json\n"
      "{\"timestamp\": 30, \"input_length\": 1100, \"output_length\": 5, \"hash_ids\": [0, 1, 2]}\n");
  ImportReport rep;
  const Trace t = read_mooncake_jsonl(in, "m.jsonl", ImportOptions{true}, &rep);
  EXPECT_EQ(rep.lines_read, 5);
  EXPECT_EQ(rep.lines_skipped, 3);
  EXPECT_EQ(rep.first_error, "m.jsonl:2: input_length: expected an integer, found \"many\"");
  ASSERT_EQ(t.sessions.size(), 2u);
  EXPECT_EQ(t.sessions[1].turns[0].prefix_blocks, 2);  // [0, 1] seen on line 1
  EXPECT_DOUBLE_EQ(t.sessions[1].start_s, 0.03);
}

TEST(TraceImport, MalformedAzureRowNamesFileLineAndColumn) {
  std::istringstream in(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:17:03.9799600,4808,10\n"
      "2023-11-16 18:17:04.5,-3,8\n"
      "yesterday,3180,8\n");
  try {
    read_azure_csv(in, "a.csv");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(), "a.csv:3: ContextTokens: expected a positive token count");
  }
  std::istringstream again(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n"
      "2023-11-16 18:17:03.5,4808,10\n"
      "yesterday,3180,8\n"
      "2023-11-16 18:17:05.0,100,1\n");
  ImportReport rep;
  const Trace t = read_azure_csv(again, "a.csv", ImportOptions{true}, &rep);
  EXPECT_EQ(rep.lines_skipped, 1);
  EXPECT_EQ(rep.first_error,
            "a.csv:3: TIMESTAMP: expected a time 'YYYY-MM-DD hh:mm:ss.fraction', found 'yesterday'");
  ASSERT_EQ(t.sessions.size(), 2u);
  EXPECT_DOUBLE_EQ(t.sessions[1].start_s, 1.5);  // 18:17:05.0 - 18:17:03.5
}

TEST(TraceImport, MalformedClaudeCodeCsvPrefixParent) {
  std::istringstream in(
      "trace_id,agent_path,req_idx,t_s,type,model,in_tokens,out_tokens,n_blocks,lcp_blocks,lcp_parent_req,"
      "new_blocks,prefix_tree_ok,api_time_s,think_time_s,ttft_s,stop,output_types\n"
      "t1,root,0,0.0,n,m,1000,100,16,0,,16,1,7.0,0.0,,tool_use,text\n"
      "t1,root,1,9.0,n,m,2000,100,32,16,root#7,16,1,7.0,2.0,,tool_use,text\n");
  try {
    read_claude_code_csv_trace(in, "r.csv");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(), "r.csv:3: lcp_parent_req: prefix parent 'root#7' is not an earlier request of this trace");
  }
}

TEST(TraceImport, NativeJsonlRoundTripsEveryField) {
  const Trace a = load_trace("", kSamples + "/claude-code-raw-sample");
  const std::string text = trace_jsonl(a);
  std::istringstream in(text);
  const Trace b = read_trace_jsonl(in, "t.jsonl");
  EXPECT_EQ(trace_jsonl(b), text);
  ASSERT_EQ(b.sessions.size(), a.sessions.size());
  EXPECT_EQ(b.block_ids(TurnRef{3, 0}), a.block_ids(TurnRef{3, 0}));
  EXPECT_EQ(compute_stats(b).hit_in_session, compute_stats(a).hit_in_session);
}

TEST(TraceImport, MalformedNativeLineNamesTheField) {
  std::istringstream in(
      "{\"format\": \"agentsim-trace\", \"version\": 1, \"block_size\": 64}\n"
      "{\"id\": \"s\", \"turns\": [{\"in\": 10, \"out\": 0}]}\n");
  try {
    read_trace_jsonl(in, "n.jsonl");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    // out = 0 lies outside the accepted token counts [1, 1e9].
    EXPECT_STREQ(e.what(), "n.jsonl:2: turns[0].out: expected an integer in [1, 1000000000], found 0");
  }
}

// replay_block_ids_from splits global ids into shared and per-replay ones; per-tree ids have no
// shared part, so the key there is an error naming it.
TEST(TraceImport, ReplayBlockIdsFromIsReadWithGlobalIdsOnly) {
  std::istringstream ok(
      "{\"format\": \"agentsim-trace\", \"version\": 1, \"block_size\": 64, \"block_ids\": \"global\", "
      "\"replay_block_ids_from\": 40}\n"
      "{\"id\": \"s\", \"turns\": [{\"in\": 10, \"out\": 1}]}\n");
  EXPECT_EQ(read_trace_jsonl(ok, "g.jsonl").replay_block_ids_from, 40u);
  std::istringstream absent("{\"format\": \"agentsim-trace\", \"version\": 1, \"block_ids\": \"global\"}\n"
                            "{\"id\": \"s\", \"turns\": [{\"in\": 10, \"out\": 1}]}\n");
  EXPECT_EQ(read_trace_jsonl(absent, "g.jsonl").replay_block_ids_from, Trace::kAllBlockIdsShared);
  std::istringstream bad(
      "{\"format\": \"agentsim-trace\", \"version\": 1, \"block_ids\": \"per-tree\", \"replay_block_ids_from\": 4}\n");
  try {
    read_trace_jsonl(bad, "p.jsonl");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(), "p.jsonl:1: replay_block_ids_from: expected only with \"block_ids\": \"global\"");
  }
}

// Found by fuzz_trace_jsonl (inputs in tests/fuzz/regressions/trace_jsonl/): links that point
// at the turn itself, at a negative or later session, or runs larger than the prompt were
// accepted; replay then recursed forever in Trace::block_ids, expanded 4e9 ids, or silently
// dropped the link. Each is now an error naming file, line and field.
std::string native_error(const std::string& session_line) {
  std::istringstream in("{\"format\": \"agentsim-trace\", \"version\": 1, \"block_size\": 64}\n" + session_line + "\n");
  try {
    read_trace_jsonl(in, "n.jsonl");
  } catch (const core::Error& e) {
    return e.what();
  }
  return "no error";
}

TEST(TraceImport, NativeLinksMustPointBackwardsAndFitThePrompt) {
  // Self-reference: turn 0 cannot share blocks with itself (there is no earlier turn).
  EXPECT_EQ(native_error(R"({"id": "a", "turns": [{"in": 100, "out": 1, "prefix": [0, 0, 1], "new": [[0, 2]]}]})"),
            "n.jsonl:2: turns[0].prefix: expected an earlier turn as prefix parent; session 0 has none yet");
  EXPECT_EQ(native_error(R"({"id": "a", "turns": [{"in": 100, "out": 1, "prefix": [-7, 0, 1]}]})"),
            "n.jsonl:2: turns[0].prefix: expected an integer in [0, 0], found -7");
  // 4e9 new blocks in one run: above the bound on a run (a 100-token prompt holds at most ceil(100 / 64) = 2).
  EXPECT_EQ(native_error(R"({"id": "a", "turns": [{"in": 100, "out": 1, "new": [[0, 4000000000]]}]})"),
            "n.jsonl:2: turns[0].new: expected an integer in [1, 1000000000], found 4000000000");
  // Found by fuzz_trace_jsonl under UBSan: a float where an integer belongs was cast to int.
  EXPECT_EQ(native_error(R"({"id": "a", "root": 1.1e108, "turns": [{"in": 100, "out": 1}]})"),
            "n.jsonl:2: root: expected an integer in [0, 0], found 1.1e+108");
  EXPECT_EQ(native_error(R"({"id": "a", "root": 5, "turns": [{"in": 100, "out": 1}]})"),
            "n.jsonl:2: root: expected an integer in [0, 0], found 5");
  EXPECT_EQ(native_error(R"({"id": "a", "spawn": {"parent": 9, "after_turn": 3}, "turns": [{"in": 100, "out": 1}]})"),
            "n.jsonl:2: spawn.parent: expected no spawn link on the trace's first record (a parent must come before it)");
  // A root must itself be a root: session 1 belongs to tree 0, so session 2 cannot name 1 as its root.
  EXPECT_EQ(native_error(R"({"id": "a", "turns": [{"in": 100, "out": 1, "new": [[0, 2]]}]})" "\n"
                         R"({"id": "b", "root": 0, "turns": [{"in": 100, "out": 1, "new": [[2, 2]]}]})" "\n"
                         R"({"id": "c", "root": 1, "turns": [{"in": 100, "out": 1, "new": [[4, 2]]}]})"),
            "n.jsonl:4: root: expected the index of the record itself or of an earlier root record");
  // The second turn may share the first turn's 2 blocks, not 3.
  EXPECT_EQ(native_error(R"({"id": "a", "turns": [{"in": 100, "out": 1, "new": [[0, 2]]}, )"
                         R"({"in": 200, "out": 1, "prefix": [0, 0, 3]}]})"),
            "n.jsonl:2: turns[1].prefix: expected an integer in [0, 2], found 3");
  EXPECT_EQ(native_error(R"({"id": "a", "turns": [{"in": 100, "out": 1, "new": [[0, 2]]}, )"
                         R"({"in": 200, "out": 1, "prefix": [0, 0, 2], "new": [[2, 2]]}]})"),
            "no error");
}

// Found by fuzz_claude_code_csv (tests/fuzz/regressions/claude_code_csv/non_utf8_trace_id.csv):
// a Latin-1 byte in trace_id made write_trace_jsonl throw nlohmann's type_error mid-file.
// The writer now substitutes U+FFFD (bytes EF BF BD) and the result reads back.
TEST(TraceImport, NativeWriterSurvivesNamesThatAreNotUtf8) {
  std::istringstream in("trace_id,agent_path,req_idx,in_tokens,out_tokens,think_time_s\ncaf\xe9,root,0,100,5,0\n");
  const Trace t = read_claude_code_csv_trace(in, "c.csv");
  ASSERT_EQ(t.sessions.size(), 1u);
  EXPECT_EQ(t.sessions[0].id, "caf\xe9/root");
  const std::string text = trace_jsonl(t);
  EXPECT_NE(text.find("\"caf\xef\xbf\xbd/root\""), std::string::npos) << text;
  std::istringstream again(text);
  EXPECT_EQ(read_trace_jsonl(again, "n.jsonl").sessions[0].id, "caf\xef\xbf\xbd/root");
}

// Found by fuzz_claude_code_json: a number beyond a double (1e400) made nlohmann throw
// out_of_range, which the importers did not catch ("internal error" from the CLI, exit 1).
// Same for Mooncake lines. Also: NaN seconds in an Azure timestamp (sscanf's %lf reads "nan")
// slipped past the range check and was written as "start_s": null; and sub-agents nested
// 100000 deep made the recursive reader run out of memory (quadratic session ids).
TEST(TraceImport, NumberOverflowNanTimesAndDeepNestingAreLocatedErrors) {
  try {
    read_claude_code_json(R"({"requests": [], "x": 1e400})", "trace_0001.json");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where().file, "trace_0001.json");
    EXPECT_NE(std::string(e.what()).find("invalid JSON: [json.exception.out_of_range.406] number overflow"), std::string::npos) << e.what();
  }
  std::istringstream moon(R"({"timestamp": 1e400, "input_length": 1, "output_length": 1, "hash_ids": []})" "\n");
  try {
    read_mooncake_jsonl(moon, "m.jsonl");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_EQ(e.where().line, 1);
    EXPECT_NE(std::string(e.what()).find("number overflow"), std::string::npos) << e.what();
  }
  double t = 0;
  EXPECT_FALSE(parse_timestamp_s("2023-11-16 18:17:nan", t));
  EXPECT_TRUE(parse_timestamp_s("2023-11-16 18:17:01.5", t));
  std::istringstream az("TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:17:nan,100,5\n");
  try {
    read_azure_csv(az, "a.csv");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(), "a.csv:2: TIMESTAMP: expected a time 'YYYY-MM-DD hh:mm:ss.fraction', found '2023-11-16 18:17:nan'");
  }
  // 65 nested sub-agents: one more than the 64 levels allowed.
  std::string deep = R"({"requests": )";
  for (int i = 0; i < 66; ++i) deep += R"([{"type": "subagent", "t": 0, "requests": )";
  deep += "[]";
  for (int i = 0; i < 66; ++i) deep += "}]";
  deep += "}";
  try {
    read_claude_code_json(deep, "trace_0002.json");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("sub-agents nested deeper than 64 levels"), std::string::npos) << e.what();
  }
}

TEST(TraceImport, UnknownFormatListsTheValidOnes) {
  try {
    load_trace("moncake", kSamples + "/mooncake-sample/conversation_trace_head300.jsonl");
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_STREQ(e.what(), "unknown trace format 'moncake' (did you mean 'mooncake'?); valid: agentsim, azure, "
                           "claude-code-csv, claude-code-json, mooncake");
  }
}

}  // namespace
}  // namespace agentsim::wl
