// Invariants on random experiments: a property-based harness. Each case draws a random valid
// experiment (model, system, plan, overlap, speculation, host time: a constant or an engine's
// model with or without its overlap scheduler, request latency, TensorRT-LLM context waits, serving
// options, replay mode, KV tiers, pods)
// small enough to run in a fraction of a second, runs it, and checks conservation laws that
// must hold for every run, whatever the options:
//   - tokens: the window's output tokens are the sampled tokens of the window's steps; every
//     request that started and finished inside the window had all its tokens emitted there; a
//     step samples at most one token per sequence plus its decode query tokens (k + 1 with
//     speculation); an open-loop replay that drains emits exactly the trace's output tokens;
//   - prefix cache: cached <= prompt - 1 for every request, and the window's hit rate is at most the
//     trace's ideal (unbounded cache, wl::compute_stats) where the whole trace is replayed
//     (open loop), else at most the highest in-session ideal of any turn;
//   - KV occupancy <= capacity at every step (and the summary's peak);
//   - power between idle and nameplate (accelerators between all-idle and all-at-TDP, facility
//     power at most the provisioned power);
//   - per-request decode speed <= the single-sequence bound of the same plan: (tokens a
//     sequence can gain per step) / (shortest decode step of the run) - with speculation a
//     sequence gains up to draft + 1 tokens a step, without it one;
//   - TTFT >= the run's request latency (the path before the scheduler sees a request) plus the
//     prefill time of the uncached part at the run's fastest prefill rate (prompt tokens
//     computed per second of the fastest step);
//   - results byte-identical for -j1 and -j2 (pods on threads).
// CI runs a fixed-seed batch (AGENTSIM_INVARIANT_CASES overrides the count, AGENTSIM_INVARIANT_SEED
// the seed; a sanitizer build runs fewer). A violation a campaign finds becomes a regression test
// in this file: Invariants.HoldOnPastViolations keeps the two cases found so far, each verbatim
// (docs/robustness.md, "Determinism, resume after a crash, memory limits").
#include <gtest/gtest.h>
#include "tests/support/source_root.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <sstream>
#include <string>

#include "experiments/config/catalog.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/resolve_run.hpp"
#include "experiments/run/run_codec.hpp"
#include "experiments/run/runner.hpp"
#include "sim/core/error.hpp"
#include "sim/core/rng.hpp"
#include "workloads/sessions/trace_stats.hpp"

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(undefined_behavior_sanitizer)
#define AGENTSIM_INVARIANTS_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define AGENTSIM_INVARIANTS_SANITIZED 1
#endif

namespace agentsim::exp {
namespace {

using agentsim::test_support::kRoot;

const Catalog& catalog() {
  static const Catalog c = load_catalog(kRoot);
  return c;
}

long long env_or(const char* name, long long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atoll(v) : fallback;
}

struct Case {
  std::string yaml;
  std::string mode;       // closed-loop, poisson, open-loop
  std::string trace;      // trace file
  bool speculative = false;
  int draft = 0;          // tokens a step may add to a sequence beyond one
  int pods = 1;
  std::string host;       // per-step host time: "constant" or the engine whose model prices it
  std::string latency = "engine";  // request latency: the engine's, "0s" or "250ms"
  bool context_wait = false;       // serving.context_wait set
  bool overlap_off = false;        // an engine's model without its overlap scheduler
};

template <class T>
const T& pick(core::RngStream& rng, const std::vector<T>& v) {
  return v[static_cast<std::size_t>(rng.uniform_index(v.size()))];
}

// One random experiment, small: a few replicas, a few agents, tens of simulated seconds.
Case random_case(std::uint64_t seed) {
  core::RngStream rng(seed, "invariants/case");
  // An integer in [lo, hi].
  struct {
    core::RngStream& rng;
    long long uniform_int(long long lo, long long hi) {
      return lo + static_cast<long long>(rng.uniform_index(static_cast<std::uint64_t>(hi - lo + 1)));
    }
    double uniform() { return rng.uniform(); }
  } draw{rng};
  auto coin = [&](double p) { return draw.uniform() < p; };
  struct Deploy {
    const char* model;
    const char* system;
    const char* plan;
  };
  static const std::vector<Deploy> deploys = {
      {"llama-3.1-8b", "hgx-h200", "tp: 1"},      {"llama-3.1-8b", "hgx-a100", "tp: 2"},
      {"llama-3.1-8b", "mi300x-8", "tp: 1"},      {"llama-3.1-8b", "hgx-b200", "tp: 1, dp: 2"},
      {"llama-3.1-70b", "hgx-h200", "tp: 4"},     {"llama-3.1-70b", "hgx-b200", "tp: 2"},
      {"gpt-oss-120b", "hgx-h200", "tp: 1"},      {"gpt-oss-120b", "gb300-nvl72", "tp: 2"},
      {"gpt-oss-120b", "hgx-b200", "tp: 2, ep: 2"}, {"qwen3-235b-a22b", "hgx-b200", "tp: 4"},
      {"deepseek-v4.1-flash", "hgx-b200", "tp: 4"}, {"deepseek-r1", "mi300x-8", "tp: 8"}};
  const Deploy& d = pick(rng, deploys);
  Case c;
  std::ostringstream y;
  y << "name: invariants\nseed: " << (seed % 100000) << "\nmodel: " << d.model << "\nsystem: " << d.system << "\n";
  y << "deployment: {" << d.plan;
  const double spec = draw.uniform();
  if (spec < 0.3) {
    y << ", speculative: off";
  } else if (spec < 0.6) {
    c.draft = static_cast<int>(draw.uniform_int(1, 3));
    y << ", speculative: {draft: " << c.draft << ", acceptance: [";
    for (int k = 0; k < c.draft; ++k) y << (k ? ", " : "") << (0.9 - 0.2 * k);
    y << "]}";
    c.speculative = true;
  } else {
    c.draft = -1;  // the model's own drafter (auto): bounded below from the catalog
  }
  if (coin(0.3)) y << ", cuda_graph: true";
  if (coin(0.3)) y << ", overlap: " << pick(rng, std::vector<std::string>{"comm", "two_batch"});
  y << "}\n";
  const int replicas = static_cast<int>(draw.uniform_int(1, 3));
  c.mode = pick(rng, std::vector<std::string>{"closed-loop", "closed-loop", "poisson", "open-loop"});
  c.pods = c.mode == "open-loop" ? 1 : static_cast<int>(draw.uniform_int(1, replicas));
  // Host time per step: a constant, or an engine's model (graph-replayed decode, SGLang's
  // unmixed prefill steps, per-DP-rank batch limits).
  if (coin(0.5)) {
    c.host = "constant";
    y << "serving:\n  step_overhead: \"" << pick(rng, std::vector<std::string>{"1ms", "2ms", "5ms"}) << "\"\n";
  } else {
    c.host = pick(rng, std::vector<std::string>{"vllm", "sglang", "trtllm"});
    y << "serving:\n  engine: " << c.host << "\n";
  }
  y << "  max_batch_tokens: " << pick(rng, std::vector<int>{512, 2048, 8192}) << "\n";
  y << "  max_sequences: " << pick(rng, std::vector<int>{4, 32, 256}) << "\n";
  y << "  admission: " << pick(rng, std::vector<std::string>{"reserve", "on_demand"}) << "\n";
  y << "  preemption: " << pick(rng, std::vector<std::string>{"recompute", "swap"}) << "\n";
  y << "  router: " << pick(rng, std::vector<std::string>{"round_robin", "least_loaded", "session_affinity", "kv_aware"})
    << "\n";
  y << "  replicas: " << replicas << "\n  pods: " << c.pods << "\n";
  if (coin(0.4)) y << "  fast_forward: true\n";
  if (replicas >= 2 && c.pods == 1 && coin(0.15)) {
    y << "  disaggregation: {prefill_replicas: 1, decode_replicas: " << replicas - 1 << "}\n";
  }
  // Sometimes little HBM left for KV: admission waits, on-demand growth preempts.
  if (coin(0.3)) y << "  memory_fraction: " << pick(rng, std::vector<double>{0.2, 0.35, 0.5}) << "\n";
  y << "  kv_cache:\n    block_tokens: " << pick(rng, std::vector<int>{16, 32, 64}) << "\n";
  y << "    prefix_caching: " << (coin(0.85) ? "true" : "false") << "\n";
  if (coin(0.4)) y << "    host: \"" << pick(rng, std::vector<std::string>{"2GB", "64GB", "1TB"}) << "\"\n";
  if (coin(0.15)) y << "    ssd: \"200GB\"\n";
  if (coin(0.3)) y << "    runtime_reserve: \"" << pick(rng, std::vector<std::string>{"1GB", "20GB"}) << "\"\n";
  const std::string retention = pick(rng, std::vector<std::string>{"lru", "ttl", "offload"});
  y << "    retention: " << retention << "\n";
  if (retention == "ttl") y << "    ttl: \"5s\"\n";
  if (coin(0.2)) y << "    tier_scope: node\n";
  // Open loop replays the Mooncake sample (300 single-turn requests over 102 s), long enough to
  // drain; the closed modes mostly the agentic Claude Code sample.
  c.trace = c.mode == "open-loop" || coin(0.2) ? "/workloads/traces/mooncake-sample/conversation_trace_head300.jsonl"
                                               : "/workloads/traces/claude-code-sample/requests.csv";
  y << "workload:\n  mode: " << c.mode << "\n  trace: " << kRoot << c.trace << "\n";
  if (c.mode == "closed-loop") {
    y << "  concurrency: [" << draw.uniform_int(1, 24) << "]\n  start_spread: \"" << draw.uniform_int(0, 5) << "s\"\n";
    if (coin(0.5)) y << "  random_start: true\n";
  } else if (c.mode == "poisson") {
    y << "  session_rates: [" << pick(rng, std::vector<double>{0.1, 0.5, 2}) << "]\n";
  } else {
    y << "  time_scales: [" << pick(rng, std::vector<double>{1, 4, 20}) << "]\n";
  }
  if (c.mode != "open-loop" && coin(0.5)) y << "  tool_gap_cap: \"" << draw.uniform_int(1, 20) << "s\"\n";
  if (c.mode == "open-loop") {
    y << "  warmup: \"0s\"\n  window: \"" << draw.uniform_int(60, 400) << "s\"\n";
  } else {
    y << "  warmup: \"" << draw.uniform_int(0, 5) << "s\"\n  window: \"" << draw.uniform_int(10, 40) << "s\"\n";
  }
  c.yaml = y.str();
  // Drawn last, so every field above keeps the value it had before this draw existed: the
  // request latency the engine's (~0.1 s), none, or longer than most steps.
  const double latency = draw.uniform();
  if (latency < 0.5) {
    c.latency = latency < 0.3 ? "0s" : "250ms";
    c.yaml.insert(c.yaml.find("workload:\n"), "  request_latency: \"" + c.latency + "\"\n");
  }
  // TensorRT-LLM's context waits (the plan's attention DP picks which applies), drawn after the rest.
  if (coin(0.3)) {
    c.context_wait = true;
    c.yaml.insert(c.yaml.find("workload:\n"),
                  "  context_wait: {balance_timeout_steps: 8, batch_wait_steps: 5, batch_wait_max_tokens_ratio: 0.5}\n");
  }
  // An engine's model without its overlap scheduler (every host term added), drawn after the rest.
  if (c.host != "constant" && coin(0.3)) {
    c.overlap_off = true;
    c.yaml.insert(c.yaml.find("workload:\n"), "  overlap_scheduler: false\n");
  }
  return c;
}

struct Checked {
  bool ran = false;
  std::vector<std::string> violations;
  // What the run exercised (the batch prints totals, so a harness that tests nothing shows).
  long long requests = 0, preemptions = 0;
  bool kv_full = false;   // peak occupancy above 90%
  bool drained = false;   // an open-loop replay checked token for token
  bool lower_tier_hits = false;
};

// Runs `c` and returns every law it breaks (empty: all hold). `ran` is false when the drawn
// experiment has no valid plan (not an error: the harness draws another).
Checked check_case(const Case& c) {
  Checked out;
  Experiment e;
  try {
    e = parse_experiment(c.yaml, kRoot + "/invariants.yaml", kRoot, &catalog());
  } catch (const core::Error& err) {
    out.violations.push_back(std::string("valid-looking experiment refused: ") + err.what());
    return out;
  }
  const Plan* plan = nullptr;
  for (const Plan& p : e.plans) {
    if (p.pruned.empty()) plan = &p;
    if (plan) break;
  }
  if (!plan) return out;
  const wl::Trace sessions = load_sessions(e);
  RunSpec spec;
  try {
    spec = resolve_run(e, *plan, sessions.block_size_tokens);
  } catch (const core::Error&) {
    return out;
  }
  if (spec.replica.kv_capacity_tokens <= 0) return out;
  const double level = e.workload.levels.front();
  const RunResult r = run_point(e, spec, sessions, level, e.seed, 1);
  out.ran = true;
  auto fail = [&](const std::string& what) { out.violations.push_back(what); };
  auto num = [](double v) {
    char b[40];
    std::snprintf(b, sizeof b, "%.9g", v);
    return std::string(b);
  };
  const double start = spec.warmup_s, end = spec.end_s, window = end - start;
  const metrics::Summary& s = r.summary;

  // Tokens: the window's output tokens are its steps' sampled tokens.
  double sampled = 0, prefill_computed = 0, recomputed = 0;
  double min_decode_step = INFINITY, max_prefill_rate = 0;
  for (const auto& st : r.steps) {
    sampled += static_cast<double>(st.sampled_tokens) * st.steps;
    prefill_computed += static_cast<double>(st.prefill_tokens) * st.steps;
    recomputed += static_cast<double>(st.recomputed_tokens) * st.steps;
    const double dur = (st.end_s - st.start_s) / st.steps;
    if (st.kv_used_fraction < 0 || st.kv_used_fraction > 1 + 1e-12) {
      fail("KV occupancy " + num(st.kv_used_fraction) + " of capacity at a step at " + num(st.start_s) + " s");
    }
    if (st.sampled_tokens > st.decode_tokens + st.batch_sequences) {
      fail("a step sampled " + std::to_string(st.sampled_tokens) + " tokens from " +
           std::to_string(st.decode_tokens) + " decode tokens and " + std::to_string(st.batch_sequences) +
           " sequences");
    }
    if (st.prefill_tokens > 0 && dur > 0) {
      max_prefill_rate = std::max(max_prefill_rate, static_cast<double>(st.prefill_tokens) / dur);
    }
    if (st.decode_tokens > 0) min_decode_step = std::min(min_decode_step, dur);
  }
  if (std::abs(s.output_tok_s * window - sampled) > 1e-6 * std::max(1.0, sampled)) {
    fail("output tokens " + num(s.output_tok_s * window) + " != sampled tokens of the window's steps " + num(sampled));
  }
  if (std::abs(s.computed_input_tok_s * window - prefill_computed) > 1e-6 * std::max(1.0, prefill_computed)) {
    fail("computed prompt tokens " + num(s.computed_input_tok_s * window) + " != the steps' " + num(prefill_computed));
  }
  double inside = 0;  // output tokens of requests that started and ended inside the window
  double cached = 0;
  // Tokens one sequence can gain in a step: 1, or draft + 1 when speculating.
  const long long gain = 1 + std::max(0, spec.replica.cost.spec.draft_tokens);
  for (const auto& q : r.requests) {
    if (q.rejected) continue;
    cached += static_cast<double>(q.cached_tokens);
    // At least one prompt token is computed (the first output token needs it).
    if (q.cached_tokens < 0 || q.cached_tokens > std::max(0LL, q.input_tokens - 1)) {
      fail("request cached " + std::to_string(q.cached_tokens) + " of a " + std::to_string(q.input_tokens) +
           "-token prompt");
    }
    if (!(q.first_token_s >= q.arrival_s) || !(q.last_token_s >= q.first_token_s)) {
      fail("request times out of order: arrival " + num(q.arrival_s) + ", first " + num(q.first_token_s) +
           ", last " + num(q.last_token_s));
    }
    if (q.arrival_s >= start && q.first_token_s >= start) inside += static_cast<double>(q.output_tokens);
    // TTFT >= the request latency, plus the uncached prompt at the run's fastest prefill rate
    // (known when a step priced one in the window).
    const double ttft = q.first_token_s - q.arrival_s, latency = spec.request_latency_s;
    if (ttft < latency * (1 - 1e-9) - 1e-9) {
      fail("TTFT " + num(ttft) + " s below the request latency " + num(latency) + " s");
    }
    const double uncached = static_cast<double>(q.input_tokens - q.cached_tokens);
    if (max_prefill_rate > 0 && q.arrival_s >= start && uncached > 0 &&
        ttft < latency + uncached / max_prefill_rate * (1 - 1e-9) - 1e-9) {
      fail("TTFT " + num(ttft) + " s below the request latency " + num(latency) + " s plus the prefill time of " +
           num(uncached) + " uncached tokens at the fastest prefill rate (" + num(uncached / max_prefill_rate) + " s)");
    }
    // Per-request speed <= a single sequence's: `gain` tokens per shortest decode step.
    if (q.output_tokens > 1 && q.last_token_s > q.first_token_s && std::isfinite(min_decode_step) &&
        q.first_token_s >= start) {
      const double speed = static_cast<double>(q.output_tokens - 1) / (q.last_token_s - q.first_token_s);
      const double bound = static_cast<double>(gain) / min_decode_step;
      if (speed > bound * (1 + 1e-9)) {
        fail("request decode speed " + num(speed) + " tok/s above the single-sequence bound " + num(bound) +
             " (" + std::to_string(gain) + " tokens per " + num(min_decode_step) + " s step)");
      }
    }
  }
  if (sampled + 1e-9 < inside) fail("window's steps sampled " + num(sampled) + " tokens, fewer than the " + num(inside) +
                                    " of requests wholly inside it");
  // Prefix cache: an open-loop replay plays each turn once, so it cannot cache more tokens than
  // an unbounded cache shared by every session would (the trace's global ideal).
  if (s.prefix_hit_rate < 0 || s.prefix_hit_rate > 1) fail("prefix hit rate " + num(s.prefix_hit_rate));
  if (c.mode == "open-loop") {
    const wl::TraceStats ts = wl::compute_stats(sessions);
    const double ideal = ts.hit_global * static_cast<double>(ts.input_tokens);
    if (ts.hit_global >= 0 && cached > ideal * (1 + 1e-9) + 1e-9) {
      fail("requests cached " + num(cached) + " prompt tokens, above the trace's ideal " + num(ideal) +
           " (hit rate " + num(ts.hit_global) + ")");
    }
  }
  // An open-loop replay that drained inside the window emitted exactly the trace's output tokens
  // (each turn's, at least one, halved where the prompt would overflow the context).
  if (c.mode == "open-loop") {
    long long turns = 0;
    double requested = 0, completed = 0;
    for (const auto& sess : sessions.sessions) {
      for (const auto& t : sess.turns) {
        ++turns;
        long long in = std::max<long long>(1, t.input_tokens), o = std::max<long long>(1, t.output_tokens);
        if (e.model.max_context > 0 && in + o > e.model.max_context) o = std::min(o, e.model.max_context / 2);
        requested += static_cast<double>(o);
      }
    }
    long long done = 0;
    for (const auto& q : r.requests) {
      done += 1;
      if (!q.rejected) completed += static_cast<double>(q.output_tokens);
    }
    if (done == turns && std::none_of(r.requests.begin(), r.requests.end(), [](const auto& q) { return q.rejected; })) {
      out.drained = true;
      if (completed != requested) fail("drained replay completed " + num(completed) + " output tokens of " + num(requested));
      if (sampled != requested) fail("drained replay's steps sampled " + num(sampled) + " output tokens of " + num(requested));
      // Every prompt token was computed or served from cache exactly once, a recompute after a
      // preemption aside; and the summary's input tokens are those prompts.
      double prompts = 0, cached_sum = 0;
      for (const auto& q : r.requests) {
        prompts += static_cast<double>(q.input_tokens);
        cached_sum += static_cast<double>(q.cached_tokens);
      }
      if (prefill_computed - recomputed + cached_sum != prompts) {
        fail("drained replay computed " + num(prefill_computed) + " (" + num(recomputed) + " again) and cached " +
             num(cached_sum) + " prompt tokens of " + num(prompts) + " (" + std::to_string(s.preemptions) +
             " preemptions)");
      }
      if (std::abs(s.input_tok_s * window - prompts) > 1e-9 * prompts) {
        fail("drained replay's input tokens " + num(s.input_tok_s * window) + " != its prompts' " + num(prompts));
      }
      if (std::abs(metrics::cache_hit_rate(s) * prompts - cached_sum) > 1e-9 * prompts) {
        fail("drained replay's cache hit rate " + num(metrics::cache_hit_rate(s)) + " is not its requests' " +
             num(cached_sum / prompts));
      }
      if (s.preemptions == 0 && recomputed != 0) fail("recomputed " + num(recomputed) + " tokens without a preemption");
    }
  }
  // KV occupancy.
  if (s.kv_occupancy_peak > 1 + 1e-12 || s.kv_occupancy_mean > s.kv_occupancy_peak + 1e-12) {
    fail("KV occupancy mean " + num(s.kv_occupancy_mean) + ", peak " + num(s.kv_occupancy_peak));
  }
  // Power: accelerators between all idle and all at TDP; facility power at most nameplate.
  const auto& acc = spec.system.accelerator;
  const double n = r.power.accelerators_total;
  if (r.power.accelerators_w < n * acc.idle_w * (1 - 1e-9) || r.power.accelerators_w > n * acc.tdp_w * (1 + 1e-9)) {
    fail("accelerator power " + num(r.power.accelerators_w) + " W outside idle " + num(n * acc.idle_w) + " .. TDP " +
         num(n * acc.tdp_w) + " W");
  }
  if (!(r.power.power_w > 0) || r.power.power_w > r.power.provisioned_w * (1 + 1e-9)) {
    fail("facility power " + num(r.power.power_w) + " W outside (0, provisioned " + num(r.power.provisioned_w) + " W]");
  }
  out.requests = s.requests;
  out.preemptions = s.preemptions;
  out.kv_full = s.kv_occupancy_peak > 0.9;
  out.lower_tier_hits = s.hit_rate_host + s.hit_rate_ssd > 0;
  // -j1 and -j2 give the same bytes.
  if (c.pods > 1) {
    const RunResult two = run_point(e, spec, sessions, level, e.seed, 2);
    if (encode_runs({r}) != encode_runs({two})) fail("results differ between -j1 and -j2");
  }
  return out;
}

TEST(Invariants, HoldOnRandomExperiments) {
#ifdef AGENTSIM_INVARIANTS_SANITIZED
  const long long fallback = 24;
#else
  const long long fallback = 400;
#endif
  const long long cases = env_or("AGENTSIM_INVARIANT_CASES", fallback);
  const auto seed = static_cast<std::uint64_t>(env_or("AGENTSIM_INVARIANT_SEED", 20261201));
  long long ran = 0, drawn = 0, requests = 0, preempted = 0, full = 0, drained = 0, tiers = 0, violations = 0;
  std::map<std::string, int> modes, hosts, latencies;
  int waits = 0, overlap_off = 0;
  for (long long i = 0; ran < cases && drawn < 4 * cases; ++i, ++drawn) {
    const std::uint64_t case_seed = core::derive_seed(seed, "case/" + std::to_string(i));
    const Case c = random_case(case_seed);
    const Checked got = check_case(c);
    violations += static_cast<long long>(got.violations.size());
    requests += got.requests;
    preempted += got.preemptions > 0;
    full += got.kv_full;
    drained += got.drained;
    tiers += got.lower_tier_hits;
    for (const auto& v : got.violations) {
      ADD_FAILURE() << "case " << i << " (seed " << case_seed << "): " << v << "\n" << c.yaml;
    }
    if (got.ran) {
      ++ran;
      ++modes[c.mode + (c.speculative ? "+spec" : "") + (c.pods > 1 ? "+pods" : "")];
      ++hosts[c.host];
      ++latencies[c.latency];
      waits += c.context_wait;
      overlap_off += c.overlap_off;
    }
  }
  std::printf("invariants: %lld experiments run (%lld drawn):", ran, drawn);
  for (const auto& [m, k] : modes) std::printf(" %s %d", m.c_str(), k);
  std::printf("; host time:");
  for (const auto& [h, k] : hosts) std::printf(" %s %d", h.c_str(), k);
  std::printf("; request latency:");
  for (const auto& [l, k] : latencies) std::printf(" %s %d", l.c_str(), k);
  std::printf("; context waits %d; engines without the overlap scheduler %d", waits, overlap_off);
  std::printf("; %lld requests in windows, %lld runs preempted, %lld filled HBM KV past 90%%, %lld hit a lower tier, "
              "%lld drained open-loop replays checked token for token; %lld violations\n",
              requests, preempted, full, tiers, drained, violations);
  EXPECT_EQ(ran, cases) << "too few drawn experiments had a valid plan";
}

// Every violation a campaign found, kept as drawn (its YAML verbatim, the trace under kRoot) so it
// keeps holding after the fix, whatever the drawing code becomes.
TEST(Invariants, HoldOnPastViolations) {
  // AGENTSIM_INVARIANT_SEED=20261204, case 3127: a recompute preemption readmitted a request that
  // found its own computed blocks still cached, and its record counted them as cache hits, so the
  // requests' cached tokens (363,758) exceeded the trace's ideal (345,966). A request's cached
  // tokens are now the least any of its admissions found (Replica::try_admit).
  Case c;
  c.mode = "open-loop";
  c.trace = "/workloads/traces/mooncake-sample/conversation_trace_head300.jsonl";
  c.host = "constant";
  c.yaml = R"(name: invariants
seed: 67050
model: llama-3.1-8b
system: mi300x-8
deployment: {tp: 1, speculative: off, cuda_graph: true}
serving:
  step_overhead: "1ms"
  max_batch_tokens: 8192
  max_sequences: 256
  admission: on_demand
  preemption: recompute
  memory_fraction: 0.838
  router: least_loaded
  replicas: 1
  pods: 1
  fast_forward: true
  kv_cache:
    block_tokens: 32
    prefix_caching: true
    host: "1TB"
    runtime_reserve: "1GB"
    retention: ttl
    ttl: "5s"
workload:
  mode: open-loop
  trace: )" + kRoot + c.trace + R"(
  time_scales: [1]
  warmup: "0s"
  window: "359s"
)";
  // AGENTSIM_INVARIANT_SEED=20261204, case 126 (found by the prompt-token law): a sequence
  // preempted after its first token (swap, no host tier: a recompute) prefilled its context
  // again, and input_tok_s counted that as input: 4,278,595 tokens against 4,269,971 prompts.
  // Steps now count recomputed prompt tokens apart (StepRecord::recomputed_tokens).
  Case d;
  d.mode = "open-loop";
  d.trace = c.trace;
  d.host = "trtllm";
  d.yaml = R"(name: invariants
seed: 136
model: llama-3.1-8b
system: mi300x-8
deployment: {tp: 1}
serving:
  engine: trtllm
  max_batch_tokens: 8192
  max_sequences: 4
  admission: on_demand
  preemption: swap
  router: least_loaded
  replicas: 2
  pods: 1
  fast_forward: true
  disaggregation: {prefill_replicas: 1, decode_replicas: 1}
  memory_fraction: 0.18
  kv_cache:
    block_tokens: 32
    prefix_caching: true
    retention: ttl
    ttl: "5s"
workload:
  mode: open-loop
  trace: )" + kRoot + d.trace + R"(
  time_scales: [1]
  warmup: "0s"
  window: "286s"
)";
  // Both were found with MI300X's HBM read as 192 x 10^9 bytes; its catalog entry is now 192 GiB,
  // and the memory fractions (0.838 for the default 0.9, 0.186 for 0.2) keep the KV bytes they ran with.
  // Case d's pools now size their KV each on its own devices; 0.18 (was 0.186) keeps it preempting
  // and draining, the two things the case exists to check.
  for (const Case* k : {&c, &d}) {
    const Checked got = check_case(*k);
    ASSERT_TRUE(got.ran);
    EXPECT_GT(got.preemptions, 0) << "the case no longer preempts: it tests nothing\n" << k->yaml;
    EXPECT_TRUE(got.drained) << "the case no longer drains: the prompt-token law is not checked";
    for (const auto& v : got.violations) ADD_FAILURE() << v;
  }
}

}  // namespace
}  // namespace agentsim::exp
