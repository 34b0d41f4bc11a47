// Timing harness for the serving engine at scale (not a unit test): prints wall time,
// peak RSS (getrusage), events/s and simulated tokens per wall second.
//   bench_scale scale [agents] [gpus] [sim_s] [cache_unit_tokens] [pods]
//     (the recorder streams the window's totals: memory does not grow with sim_s)
//     closed-loop agents replaying the Claude Code sample on gpt-oss-120b, TP8 replicas
//     of gb300-nvl72 devices, session-affinity routing, fast-forward on. With pods > 1 the
//     cluster is that many independent routing pods (sim/serving/pods.hpp), one thread each.
//   mpirun -n K bench_scale scale agents gpus sim_s unit pods [threads]
//     pods over ranks: pod p runs on rank p mod K, on up to `threads` threads of its rank
//     (default: one per pod); rank 0 merges every pod in pod order and prints the results
//     line, and each rank prints its own wall, CPU and peak RSS.
//   bench_scale vidur
//     Llama-3.1-8B on one A100 80GB, TP1, chunked prefill 512, 128 sequences, 10,000
//     Poisson requests at 6.45 req/s, Azure conversation lengths capped at 4,096.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstring>
#include <cstdio>
#include <exception>
#include <string>
#include <vector>

#include "experiments/config/catalog.hpp"
#include "experiments/run/run_codec.hpp"
#include "experiments/run/runner.hpp"
#include "experiments/run/sweep_ranks.hpp"
#include "sim/core/parallel_for.hpp"
#include "sim/core/rng.hpp"
#include "sim/core/simulator.hpp"
#include "sim/metrics/summary.hpp"
#include "sim/serving/closed_loop_driver.hpp"
#include "sim/serving/cluster.hpp"
#include "sim/serving/pods.hpp"
#include "workloads/model/footprint.hpp"
#include "workloads/sessions/trace_formats.hpp"

using namespace agentsim;

namespace {

double peak_rss_mb() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

// User CPU seconds of the process so far (the machine may be shared: wall time alone misleads).
double user_cpu_s() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec) + static_cast<double>(u.ru_utime.tv_usec) * 1e-6;
}

void report(const char* what, double wall_s, unsigned long long events, const metrics::Summary& s,
            double sim_s) {
  const double tokens = (s.total_tok_s) * s.window_s;
  std::printf("%s: wall %.2f s (user CPU %.2f s since start), peak RSS %.0f MB, events %llu (%.3g /s), simulated %.0f s, "
              "tokens %.4g (%.4g per wall s), requests %lld, hit rate %.3f, steps %lld\n",
              what, wall_s, user_cpu_s(), peak_rss_mb(), events, static_cast<double>(events) / wall_s, sim_s, tokens, tokens / wall_s, s.requests,
              s.prefix_hit_rate, s.steps);
}

serving::ReplicaOptions options(const wl::ModelSpec& m, const hw::System& sys, int tp, long long batch_tokens,
                                int max_seqs) {
  serving::ReplicaOptions o;
  o.cost.plan.tp = tp;
  o.cost.efficiency = hw::Efficiency{0.7, 0.8, 0.8};
  o.cost.step_overhead_s = 2e-3;
  o.max_batch_tokens = batch_tokens;
  o.max_sequences = max_seqs;
  wl::ParallelPlan plan;
  plan.tp = tp;
  const auto fp = wl::footprint(m, plan);
  o.kv_capacity_tokens = static_cast<long long>(
      (sys.accelerator.hbm_bytes * 0.9 - fp.weight_bytes() -
       fp.activation_bytes_per_token * static_cast<double>(batch_tokens)) / fp.kv_bytes_per_token);
  o.fast_forward = true;
  return o;
}

using PodResult = exp::PodOutcome;

// One pod: its share of the replicas and agents, its own simulator, router and seed.
void run_pod(PodResult& out, const wl::ModelSpec& model, const hw::System& system, const wl::Trace& trace,
             int agents, int replicas, double sim_s, long long unit, int pods, int p) {
  core::Simulator sim;
  out.recorder.stream_window(0.0, sim_s);  // totals only: memory does not grow with sim_s
  auto o = options(model, system, 8, 8192, 256);
  o.kv.unit_tokens = serving::cache_unit_tokens(unit, trace.block_size_tokens);
  o.barriers_s = {0.0, sim_s};
  serving::ClusterOptions co;
  co.replicas = static_cast<int>(serving::pod_share(replicas, pods, p));
  co.router = serving::RouterPolicy::kSessionAffinity;
  serving::Cluster cluster(sim, model, system, o, co, out.recorder);
  serving::ClosedLoopOptions lo;
  lo.agents = static_cast<int>(serving::pod_share(agents, pods, p));
  lo.seed = serving::pod_seed(1, p);
  lo.max_context_tokens = model.max_context;
  lo.start_spread_s = 10;
  lo.random_start = true;
  serving::ClosedLoopDriver d(sim, cluster, trace, lo);
  d.start();
  sim.run_until(core::to_ticks(sim_s));
  out.counters = cluster.counters();
  out.events = sim.events_run();
  out.replicas = static_cast<int>(cluster.size());
}

int scale(int agents, int gpus, double sim_s, long long unit, int pods, int threads) {
  const exp::SweepRanks ranks;
  const auto catalog = exp::load_catalog(AGENTSIM_SOURCE_DIR);
  const auto& model = catalog.models.get("gpt-oss-120b");
  const auto& system = catalog.systems.get("gb300-nvl72");
  const wl::Trace trace =
      wl::load_trace("", std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces/claude-code-sample/requests.csv");
  const auto t0 = std::chrono::steady_clock::now();
  const int replicas = gpus / 8;
  // This rank's pods (p mod ranks == rank), on up to `threads` threads (default one per pod).
  std::vector<int> mine;
  for (int p = ranks.rank(); p < pods; p += ranks.size()) mine.push_back(p);
  std::vector<PodResult> parts(mine.size());
  const int nthreads = threads > 0 ? threads : static_cast<int>(mine.size());
  core::parallel_for(parts.size(), std::max(1, nthreads), [&](std::size_t k) {
    run_pod(parts[k], model, system, trace, agents, replicas, sim_s, unit, pods, mine[k]);
  });
  const double rank_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  unsigned long long rank_events = 0;
  for (const PodResult& part : parts) rank_events += part.events;
  std::vector<PodResult> all;
  if (ranks.size() == 1) {
    all = std::move(parts);
  } else {
    // Every rank's pods as bytes, in pod order on rank 0.
    std::string packed;
    for (const PodResult& part : parts) {
      const std::string bytes = exp::encode_pod(part);
      const std::uint64_t n = bytes.size();
      packed.append(reinterpret_cast<const char*>(&n), sizeof n);
      packed += bytes;
    }
    parts.clear();
    std::vector<std::vector<PodResult>> by_rank;
    for (const std::string& got : ranks.all_gather(packed)) {
      by_rank.emplace_back();
      for (std::size_t at = 0; at < got.size();) {
        std::uint64_t n = 0;
        std::memcpy(&n, got.data() + at, sizeof n);
        at += sizeof n;
        by_rank.back().push_back(exp::decode_pod(got.substr(at, n)));
        at += n;
      }
    }
    for (int p = 0; p < pods; ++p) {
      auto& from = by_rank[static_cast<std::size_t>(p % ranks.size())];
      all.push_back(std::move(from[static_cast<std::size_t>(p / ranks.size())]));
    }
  }
  metrics::Recorder rec;
  rec.stream_window(0.0, sim_s);
  metrics::CacheCounters counters;
  unsigned long long events = 0;
  for (PodResult& part : all) {
    rec.absorb(std::move(part.recorder));
    counters.add(part.counters);
    events += part.events;
  }
  const auto s = metrics::summarize(rec, 0.0, sim_s, counters);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (ranks.size() > 1) {
    std::printf("rank %d of %d: %zu pods, wall %.2f s before the gather, user CPU %.2f s, peak RSS %.0f MB, "
                "events %llu (%.3g /s)\n",
                ranks.rank(), ranks.size(), mine.size(), rank_wall, user_cpu_s(), peak_rss_mb(), rank_events,
                static_cast<double>(rank_events) / rank_wall);
    std::fflush(stdout);
  }
  if (ranks.rank() != 0) return 0;
  char what[200];
  std::snprintf(what, sizeof what, "scale %d agents, %d replicas x TP8, %d pod%s", agents, replicas, pods,
                pods == 1 ? "" : "s");
  if (ranks.size() > 1) {
    const std::string label = std::string(what) + " over " + std::to_string(ranks.size()) + " ranks";
    std::snprintf(what, sizeof what, "%s", label.c_str());
  }
  report(what, wall, events, s, sim_s);
  return 0;
}

int vidur() {
  const auto catalog = exp::load_catalog(AGENTSIM_SOURCE_DIR);
  const auto& model = catalog.models.get("llama-3.1-8b");
  const auto& system = catalog.systems.get("hgx-a100");
  const wl::Trace azure =
      wl::load_trace("", std::string(AGENTSIM_SOURCE_DIR) + "/workloads/traces/azure/AzureLLMInferenceTrace_conv.csv");
  const auto t0 = std::chrono::steady_clock::now();
  core::Simulator sim;
  metrics::Recorder rec;
  auto o = options(model, system, 1, 512, 128);
  serving::Replica replica(sim, model, system, o, rec);
  core::RngStream rng(1, "bench/vidur-arrivals");
  double t = 0;
  std::size_t k = 0;
  for (int i = 0; i < 10000; ++i) {
    t += rng.exponential(1.0 / 6.45);
    const auto& turn = azure.sessions[k % azure.sessions.size()].turns[0];
    ++k;
    serving::Request r;
    r.input_tokens = std::clamp(turn.input_tokens, 1LL, 4096LL);
    r.output_tokens = std::clamp(turn.output_tokens, 1LL, 4096LL);
    sim.at(core::to_ticks(t), [&replica, r] { replica.submit(r, [](const metrics::RequestRecord&) {}); });
  }
  sim.run_until_idle();
  const double end = sim.now_s();
  const auto s = metrics::summarize(rec, 0.0, end + 1e-9);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  report("vidur-comparison", wall, sim.events_run(), s, end);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string mode = argc > 1 ? argv[1] : "vidur";
    if (mode == "vidur") return vidur();
    const int agents = argc > 2 ? std::stoi(argv[2]) : 100000;
    const int gpus = argc > 3 ? std::stoi(argv[3]) : 10008;
    const double sim_s = argc > 4 ? std::stod(argv[4]) : 3600;
    const long long unit = argc > 5 ? std::stoll(argv[5]) : 4096;
    const int pods = argc > 6 ? std::stoi(argv[6]) : 1;
    const int threads = argc > 7 ? std::stoi(argv[7]) : 0;
    return scale(agents, gpus, sim_s, unit, pods, threads);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_scale: %s\n", e.what());
  } catch (...) {
    std::fprintf(stderr, "bench_scale: unknown exception\n");
  }
  return 2;
}
