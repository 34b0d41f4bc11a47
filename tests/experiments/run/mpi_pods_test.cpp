// Pods of one run across MPI ranks: a sweep of 2 runs x 3 pods under `mpirun -n 1`, `-n 2`
// and `-n 3` (and -j2 within ranks, and a gather in rounds of 3,001 bytes) writes byte-identical
// summary.csv, readoffs.csv and results.h5: each run's pods are tasks sharded over ranks and
// threads, merged in pod order.
// Compiled only where MPI is found (tests/CMakeLists.txt); cmake/install_deps.sh installs it.
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "tests/support/cli_runner.hpp"

namespace {
namespace fs = std::filesystem;
using agentsim::test_support::run;
using agentsim::test_support::run_shell;
using agentsim::test_support::slurp;

using agentsim::test_support::kRoot;

TEST(MpiPods, OutputsAreByteIdenticalForAnyRankAndThreadCount) {
  const fs::path dir = fs::temp_directory_path() / ("agentsim_mpi_pods_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path exp = dir / "pods.yaml";
  std::ofstream(exp) << "name: mpi-pods\nseed: 5\nmodel: llama-3.1-8b\nsystem: hgx-h200\ndeployment: {tp: 1}\n"
                        "serving: {replicas: 3, pods: 3, router: session_affinity, step_overhead: \"2ms\"}\n"
                        "readoffs: {agent_speeds: [60]}\n"
                        "workload:\n  trace: " + kRoot + "/workloads/traces/claude-code-sample/requests.csv\n"
                        "  concurrency: [6, 24]\n  warmup: \"2s\"\n  window: \"20s\"\n  start_spread: \"2s\"\n";
  const auto plain = run("run " + exp.string() + " -j 1 --out " + (dir / "plain").string());
  ASSERT_EQ(plain.code, 0) << plain.output;
  struct Launch {
    const char* name;
    int ranks;
    int threads;
    const char* chunk_bytes;  // the gather's round size, when set: many rounds of a few KB
  };
  for (const Launch& l : {Launch{"n1", 1, 1, nullptr}, Launch{"n2", 2, 1, nullptr}, Launch{"n3", 3, 1, nullptr},
                          Launch{"n2j2", 2, 2, nullptr}, Launch{"n3chunks", 3, 1, "3001"}}) {
    // Leak checks off in the ranks (Open MPI's never-freed globals; see sweep_robustness_test).
    const std::string chunk = l.chunk_bytes ? std::string("AGENTSIM_MPI_GATHER_CHUNK_BYTES=") + l.chunk_bytes + " " : "";
    const auto r = run_shell(chunk + "ASAN_OPTIONS=\"${ASAN_OPTIONS:-}:detect_leaks=0\" "
                             "OMPI_MCA_btl_vader_single_copy_mechanism=none mpirun --allow-run-as-root "
                             "--oversubscribe -n " + std::to_string(l.ranks) + " " + std::string(AGENTSIM_BINARY) +
                             " run " + exp.string() + " -j " + std::to_string(l.threads) + " --out " +
                             (dir / l.name).string());
    ASSERT_EQ(r.code, 0) << r.output;
    EXPECT_NE(r.output.find("x " + std::to_string(l.ranks) + " process(es)"), std::string::npos) << r.output;
    for (const char* f : {"summary.csv", "readoffs.csv", "results.h5"}) {
      const std::string a = slurp(dir / "plain" / f), b = slurp(dir / l.name / f);
      EXPECT_FALSE(a.empty()) << f;
      EXPECT_TRUE(a == b) << f << " differs under " << l.name;
    }
  }
  fs::remove_all(dir);
}

}  // namespace
