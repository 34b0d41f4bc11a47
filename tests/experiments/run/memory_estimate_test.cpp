// The peak-memory estimate of a run: its formula on a hand-built trace, the
// per-block constant against the heap a KvBlockCache really takes, and the CLI
// failing early (exit 2, nothing written) when a limit is too small.
// Project headers first: <signal.h> (via gtest) defines a si_value macro.
#include "experiments/config/experiment.hpp"
#include "experiments/run/memory_estimate.hpp"
#include "sim/serving/kv_block_cache.hpp"

#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <malloc.h>
#if defined(__SANITIZE_ADDRESS__)
#define AGENTSIM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define AGENTSIM_UNDER_ASAN 1
#endif
#endif
#if defined(AGENTSIM_UNDER_ASAN)
#include <sanitizer/allocator_interface.h>
#endif

#include <filesystem>
#include <fstream>

#include "tests/support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;
using agentsim::test_support::run;
namespace exp = agentsim::exp;

using agentsim::test_support::kRoot;

class MemoryEstimate : public ::testing::Test {
 protected:
  fs::path dir = fs::temp_directory_path() /
                 ("agentsim_mem_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()));
  void SetUp() override {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  void TearDown() override { fs::remove_all(dir); }
  std::string experiment(const std::string& extra) {
    const fs::path p = dir / "e.yaml";
    std::ofstream(p) << "name: mem\nmodel: llama-3.1-70b\nsystem: hgx-h200\ndeployment: {tp: 8}\n"
                        "serving: {step_overhead: \"2ms\"}\n"
                        "workload:\n  trace: " + kRoot + "/workloads/traces/claude-code-sample/requests.csv\n"
                        "  concurrency: [10]\n  warmup: \"5s\"\n  window: \"15s\"\n" + extra;
    return p.string();
  }
  static double component(const exp::MemoryEstimate& m, const std::string& name) {
    for (const auto& c : m.components) {
      if (c.name == name) return c.bytes;
    }
    return -1;
  }
};

TEST_F(MemoryEstimate, RecorderBoundsFollowTheFormula) {
  const exp::Experiment e = exp::load_experiment(experiment(""), kRoot);
  // One session, two turns: mean gap 1 s, mean output 100 tokens, mean prompt 1500 tokens, no block data.
  agentsim::wl::Trace t;
  t.sessions.emplace_back("s", std::vector<agentsim::wl::Turn>{{1000, 100, 1.0}, {2000, 100, 1.0}});
  const exp::MemoryEstimate m = exp::estimate_memory(e, t, 1, 1);
  // D = 5 + 15 = 20 s; step floor = 2 ms; turn = 1 s + 100 x 2 ms = 1.2 s;
  // requests <= 10 agents x ceil(20 / 1.2) = 10 x 17 = 170; x 64 B = 10,880 B.
  EXPECT_DOUBLE_EQ(component(m, "recorded requests"), 170.0 * 64);
  // steps <= min(1 replica x 20 s / 2 ms = 10,000, 170 x (100 + ceil(1500 / 8192) = 1)) = 10,000; x 112 B.
  EXPECT_DOUBLE_EQ(component(m, "recorded steps"), 10000.0 * 112);
  // Kept: the window's share 15/20 of both, held for the sinks, plus 2x for the output buffers
  // of the largest (only) point: 0.75 x (10,880 + 1,040,000) x 3.
  EXPECT_NEAR(component(m, "kept results"), 0.75 * (10880.0 + 1120000.0) * 3, 1e-6);
  // No block data: no KV tables; agents 10 x 1024 B (+ 0 block keys).
  EXPECT_EQ(component(m, "KV block tables"), -1);
  EXPECT_DOUBLE_EQ(component(m, "agents in flight"), 10.0 * 1024);
  // The trace itself: one session of two turns, a few hundred bytes of structs.
  EXPECT_GT(component(m, "trace in memory"), 0);
  EXPECT_LT(component(m, "trace in memory"), 1000);
  // Total by hand: 230,000,000 B baseline + 10,880 requests + 1,120,000 steps
  // + 2,544,480 kept (0.75 x 1,130,880 x 3) + 10,240 agents = 233,685,600 B, plus the trace (< 1 kB).
  EXPECT_GE(m.total_bytes, 233685600.0);
  EXPECT_LT(m.total_bytes, 233685600.0 + 1000);
  EXPECT_EQ(m.components.front().name, "process baseline") << "230 MB dominates this tiny run";
  // Two threads on one point: still one concurrent run; the sim parts do not double.
  EXPECT_DOUBLE_EQ(component(exp::estimate_memory(e, t, 2, 1), "recorded steps"), 10000.0 * 112);
}

// Bytes of heap in use: glibc's count (small chunks plus mmap'ed large blocks), or
// AddressSanitizer's when its allocator replaces glibc's (mallinfo2 then reports 0).
std::size_t heap_in_use_bytes() {
#if defined(AGENTSIM_UNDER_ASAN)
  return __sanitizer_get_current_allocated_bytes();
#else
  const auto m = mallinfo2();
  return m.uordblks + m.hblkhd;
#endif
}

TEST_F(MemoryEstimate, PerBlockConstantMatchesTheMeasuredHeap) {
  // 200,000 distinct keyed blocks cached (released, so all sit in the LRU), heap measured by mallinfo2.
  constexpr long long kBlocks = 200000;
  const auto before = heap_in_use_bytes();
  {
    agentsim::serving::KvBlockCache cache({{"hbm", kBlocks}});
    std::vector<agentsim::serving::BlockKey> keys;
    for (long long i = 0; i < kBlocks; ++i) keys.push_back(static_cast<std::uint64_t>(i) * 2654435761ULL + 1);
    ASSERT_TRUE(cache.acquire(keys, 0).has_value());
    cache.release(keys, 0);
    keys = {};
    const double per_block = static_cast<double>(heap_in_use_bytes() - before) / kBlocks;
    EXPECT_NEAR(per_block, exp::memory_constants::kBytesPerCachedBlock,
                0.25 * exp::memory_constants::kBytesPerCachedBlock)
        << "measured " << per_block << " B per cached block";
  }
}

TEST_F(MemoryEstimate, SmallLimitFailsBeforeSimulatingAndWritesNothing) {
  const auto r = run("run " + experiment("limits: {memory: \"10MB\"}\n") + " --out " + (dir / "o").string());
  EXPECT_EQ(r.code, 2) << r.output;
  for (const char* s : {"limits.memory", "estimated peak memory", "exceeds the 10 MB available (limits.memory)",
                        "process baseline: 230 MB", "fewer agents"}) {
    EXPECT_NE(r.output.find(s), std::string::npos) << s << " in\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "o"));
  const auto cli = run("run " + experiment("") + " --max-memory 10MB --out " + (dir / "o").string());
  EXPECT_EQ(cli.code, 2) << cli.output;
  EXPECT_NE(cli.output.find("available (--max-memory)"), std::string::npos) << cli.output;
  EXPECT_FALSE(fs::exists(dir / "o"));
}

TEST_F(MemoryEstimate, TraceTooBigToLoadIsRefusedFromItsSizeBeforeReadingIt) {
  // 4 MB of text that is not a trace: the size check must come before any parsing.
  const fs::path trace = dir / "big.jsonl";
  std::ofstream(trace) << std::string(4'000'000, 'x') << "\n";
  const fs::path p = dir / "big.yaml";
  std::ofstream(p) << "name: mem\nmodel: llama-3.1-70b\nsystem: hgx-h200\ndeployment: {tp: 8}\n"
                      "workload:\n  trace: " + trace.string() + "\n  format: agentsim\n  concurrency: [10]\n  warmup: \"5s\"\n  window: \"15s\"\n";
  // 230 MB baseline + 4 MB x 8 = 262 MB > 250 MB.
  const auto r = run("run " + p.string() + " --max-memory 250MB --out " + (dir / "o").string());
  EXPECT_EQ(r.code, 2) << r.output;
  for (const char* s : {"estimated peak memory 262 MB exceeds the 250 MB available (--max-memory)",
                        "trace file, while loading: 32 MB (4 MB on disk x 8", "a sampled (smaller) trace"}) {
    EXPECT_NE(r.output.find(s), std::string::npos) << s << " in\n" << r.output;
  }
  EXPECT_FALSE(fs::exists(dir / "o"));
  // With room, the same file is read and fails as a trace (so the check above did not read it).
  const auto parsed = run("run " + p.string() + " --max-memory 2GB --out " + (dir / "o").string());
  EXPECT_EQ(parsed.code, 2) << parsed.output;
  EXPECT_EQ(parsed.output.find("estimated peak"), std::string::npos) << parsed.output;
  EXPECT_NE(parsed.output.find("big.jsonl:1"), std::string::npos) << parsed.output;
}

TEST_F(MemoryEstimate, AmpleLimitRunsAndBadLimitsAreInputErrors) {
  const auto ok = run("run " + experiment("limits: {memory: \"2GB\"}\n") + " -j 1 --out " + (dir / "o").string());
  ASSERT_EQ(ok.code, 0) << ok.output;
  EXPECT_NE(ok.output.find("memory: estimated peak"), std::string::npos) << ok.output;
  EXPECT_TRUE(fs::exists(dir / "o" / "summary.csv"));
  const auto neg = run("run " + experiment("limits: {memory: \"0GB\"}\n") + " --out " + (dir / "n").string());
  EXPECT_EQ(neg.code, 2);
  EXPECT_NE(neg.output.find("limits.memory"), std::string::npos) << neg.output;
  EXPECT_NE(neg.output.find("expected a positive size"), std::string::npos) << neg.output;
  const auto typo = run("run " + experiment("limits: {memroy: \"2GB\"}\n") + " --out " + (dir / "n").string());
  EXPECT_EQ(typo.code, 2);
  EXPECT_NE(typo.output.find("did you mean 'memory'"), std::string::npos) << typo.output;
}

}  // namespace
