// The native JSON Lines and HDF5 forms round-trip every field of imported
// traces (full Claude Code CSV and Mooncake), and HDF5 is the smaller file.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "experiments/traceio/trace_files.hpp"
#include "experiments/traceio/trace_h5.hpp"
#include "sim/core/error.hpp"
#include "workloads/sessions/session_generator.hpp"
#include "workloads/sessions/trace_formats.hpp"

namespace agentsim::exp {
namespace {
namespace fs = std::filesystem;

const std::string kData = std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces";  // vendored full traces (PROVENANCE.md beside each)

void expect_same(const wl::Trace& a, const wl::Trace& b) {
  EXPECT_EQ(a.name, b.name);
  EXPECT_EQ(a.block_size_tokens, b.block_size_tokens);
  EXPECT_EQ(a.global_block_ids, b.global_block_ids);
  EXPECT_EQ(a.replay_block_ids_from, b.replay_block_ids_from);
  ASSERT_EQ(a.sessions.size(), b.sessions.size());
  for (std::size_t i = 0; i < a.sessions.size(); ++i) {
    const wl::Session& x = a.sessions[i];
    const wl::Session& y = b.sessions[i];
    ASSERT_EQ(x.id, y.id);
    ASSERT_EQ(x.root, y.root) << x.id;
    ASSERT_EQ(x.start_s, y.start_s) << x.id;
    ASSERT_EQ(x.spawn.parent_session, y.spawn.parent_session) << x.id;
    ASSERT_EQ(x.spawn.after_turn, y.spawn.after_turn) << x.id;
    ASSERT_EQ(x.spawn.async, y.spawn.async) << x.id;
    ASSERT_EQ(x.block_runs, y.block_runs) << x.id;
    ASSERT_EQ(x.turns.size(), y.turns.size()) << x.id;
    for (std::size_t k = 0; k < x.turns.size(); ++k) {
      const wl::Turn& s = x.turns[k];
      const wl::Turn& t = y.turns[k];
      ASSERT_EQ(s.input_tokens, t.input_tokens) << x.id << " turn " << k;
      ASSERT_EQ(s.output_tokens, t.output_tokens);
      ASSERT_EQ(s.gap_after_s, t.gap_after_s);
      ASSERT_EQ(s.gap_kind, t.gap_kind);
      ASSERT_EQ(s.stop, t.stop);
      ASSERT_EQ(s.prefix_break, t.prefix_break);
      ASSERT_EQ(s.prefix_parent, t.prefix_parent);
      ASSERT_EQ(s.prefix_blocks, t.prefix_blocks);
      ASSERT_EQ(s.runs_begin, t.runs_begin);
      ASSERT_EQ(s.runs_end, t.runs_end);
      ASSERT_EQ(s.t_s, t.t_s);
      ASSERT_EQ(s.api_time_s, t.api_time_s);
      ASSERT_EQ(s.ttft_s, t.ttft_s);
    }
  }
}

struct TraceH5 : ::testing::Test {
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_h5_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }

  // Imports `path`, writes both forms, reads each back (timed) and compares. HDF5 has a
  // fixed cost of ~2 kB per dataset, so only large sets (`large`) must come out smaller.
  void round_trip(const std::string& format, const std::string& path, bool large) {
    round_trip(load_trace_file(format, path), path, large);
  }
  void round_trip(const wl::Trace& imported, const std::string& path, bool large) {
    const std::string jsonl = (dir / "t.jsonl").string();
    const std::string h5 = (dir / "t.h5").string();
    save_trace_file(imported, jsonl);
    save_trace_file(imported, h5);
    EXPECT_TRUE(has_hdf5_signature(h5));
    EXPECT_FALSE(has_hdf5_signature(jsonl));
    EXPECT_EQ(wl::detect_trace_format(h5), "agentsim-h5");
    using clock = std::chrono::steady_clock;
    const auto t0 = clock::now();
    const wl::Trace from_jsonl = load_trace_file("", jsonl);
    const auto t1 = clock::now();
    const wl::Trace from_h5 = load_trace_file("", h5);
    const auto t2 = clock::now();
    expect_same(from_jsonl, imported);
    expect_same(from_h5, imported);
    const auto jsonl_bytes = fs::file_size(jsonl);
    const auto h5_bytes = fs::file_size(h5);
    std::printf("%s: %zu turns; JSONL %ju bytes, load %.3f s; HDF5 %ju bytes, load %.3f s\n", path.c_str(),
                imported.turn_count(), static_cast<std::uintmax_t>(jsonl_bytes),
                std::chrono::duration<double>(t1 - t0).count(), static_cast<std::uintmax_t>(h5_bytes),
                std::chrono::duration<double>(t2 - t1).count());
    if (large) {
      EXPECT_LT(h5_bytes * 4, jsonl_bytes) << "at least 4x smaller";
    }
    // Atomic writes leave no temporary file beside the targets.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir), fs::directory_iterator()), 2);
  }
};

TEST_F(TraceH5, ClaudeCodeCsvRoundTripsThroughJsonlAndHdf5) {
  round_trip("claude-code-csv", kData + "/claude-code/requests.csv", true);
}

TEST_F(TraceH5, MooncakeRoundTripsThroughJsonlAndHdf5) {
  round_trip("mooncake", kData + "/mooncake/conversation_trace.jsonl", true);
}

TEST_F(TraceH5, RawJsonWithSubagentsRoundTrips) {
  round_trip("claude-code-json", kData + "/claude-code-raw-sample/trace_0291.json", false);
}

// A generated trace keeps where its sessions' own block ids start (Trace::replay_block_ids_from).
TEST_F(TraceH5, GeneratedTraceKeepsItsSharedAndOwnBlockIds) {
  wl::GeneratorConfig g;
  g.turns = {3, 5};
  g.initial_context_tokens = {2000, 3000};
  g.shared_system_prompt_tokens = 1024;
  g.repositories = 3;
  g.repository_tokens = {512, 600};
  const wl::Trace t = wl::generate_sessions(g, 5, 3);
  ASSERT_TRUE(t.global_block_ids);
  ASSERT_GT(t.replay_block_ids_from, 0u);
  ASSERT_LT(t.replay_block_ids_from, wl::Trace::kAllBlockIdsShared);
  round_trip(t, "generated", false);
}

TEST_F(TraceH5, NonTraceHdf5AndTruncatedFilesAreErrors) {
  const std::string bogus = (dir / "bogus.h5").string();
  std::ofstream(bogus) << "not hdf5\n";
  try {
    load_trace_file("", bogus);
    FAIL() << "expected an error";
  } catch (const core::Error& e) {
    EXPECT_NE(std::string(e.what()).find("bogus.h5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("not an HDF5 file"), std::string::npos) << e.what();
  }
  // The workloads layer names the format but leaves reading it to this layer.
  wl::Trace t;
  t.name = "x";
  t.sessions.push_back(wl::Session("s", {wl::Turn(10, 1, 0)}));
  t.sessions.back().root = 0;
  const std::string good = (dir / "good.h5").string();
  save_trace_file(t, good);
  EXPECT_THROW(wl::load_trace("agentsim-h5", good), core::Error);
  expect_same(load_trace_file("agentsim-h5", good), t);
}

}  // namespace
}  // namespace agentsim::exp
