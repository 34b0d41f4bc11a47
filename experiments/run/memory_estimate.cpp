#include "experiments/run/memory_estimate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/units.hpp"
#include "sim/metrics/records.hpp"
#include "sim/serving/kv_manager.hpp"
#include "workloads/model/footprint.hpp"

namespace agentsim::exp {

namespace {

constexpr double kMinStepS = 1e-3;

std::string bytes_text(double b) { return core::format_quantity(b, core::Dimension::kBytes); }
std::string count_text(double n) {
  char buf[32];
  if (n >= 1e6) {
    std::snprintf(buf, sizeof buf, "%.3gM", n / 1e6);
  } else {
    std::snprintf(buf, sizeof buf, "%.0f", n);
  }
  return buf;
}

struct TraceStats {
  double turns = 0, sessions = 0;
  double mean_gap_s = 0, mean_out = 0, mean_in = 0;
  double keyed_blocks = 0;  // distinct block ids the trace can key (new blocks of every turn)
};

TraceStats trace_stats(const wl::Trace& t) {
  TraceStats s;
  s.sessions = static_cast<double>(t.sessions.size());
  for (const auto& ses : t.sessions) {
    for (const auto& turn : ses.turns) {
      s.turns += 1;
      s.mean_gap_s += turn.gap_after_s;
      s.mean_out += static_cast<double>(turn.output_tokens);
      s.mean_in += static_cast<double>(turn.input_tokens);
    }
    for (const auto& run : ses.block_runs) s.keyed_blocks += run.count;
  }
  if (s.turns > 0) {
    s.mean_gap_s /= s.turns;
    s.mean_out /= s.turns;
    s.mean_in /= s.turns;
  }
  return s;
}

// One point's simulation state and what it keeps, in bytes.
struct PointBytes {
  double kv = 0, agents = 0, requests = 0, steps = 0;
  double kept = 0;
  std::string kv_detail, agents_detail, requests_detail, steps_detail;
  double sim() const { return kv + agents + requests + steps; }
};

PointBytes point_bytes(const Experiment& e, const wl::Trace& sessions, const TraceStats& ts, const Plan& plan,
                       double level) {
  PointBytes pb;
  const double dur_s = e.workload.warmup_s + e.workload.window_s;
  const double kept_fraction = dur_s > 0 ? e.workload.window_s / dur_s : 1.0;
  const auto& sv = e.serving;
  const double replicas = sv.prefill_replicas > 0 ? sv.prefill_replicas + sv.decode_replicas
                          : sv.replicas > 0       ? sv.replicas
                                                  : std::max(1, e.systems[static_cast<std::size_t>(plan.system)].accelerators /
                                                                    plan.deployment.plan.devices());
  const double step_s = std::max(sv.step_overhead_s, kMinStepS);

  double agents = level;
  if (e.workload.mode == ReplayMode::kPoisson) agents = level * dur_s * std::max(1.0, ts.turns / ts.sessions);
  if (e.workload.mode == ReplayMode::kOpenLoop) agents = ts.sessions;
  const double unit = static_cast<double>(serving::cache_unit_tokens(sv.block_tokens, sessions.block_size_tokens));
  const bool keyed = sv.prefix_caching && sessions.block_size_tokens > 0 && unit > 0;
  const double prompt_blocks = keyed ? ts.mean_in / unit : 0;
  pb.agents = agents * (memory_constants::kBytesPerAgent + prompt_blocks * 8);
  pb.agents_detail = count_text(agents) + " sessions in flight x (" + bytes_text(memory_constants::kBytesPerAgent) + " + " +
                     count_text(prompt_blocks) + " block keys x 8 B)";

  // KV: whatever the tiers can hold, but never more distinct blocks than the trace names.
  if (keyed) {
    const wl::Footprint fp = wl::footprint(e.model, plan.deployment.plan);
    const double replica_kv_bytes_per_token = fp.kv_bytes_per_token * plan.deployment.plan.tp * plan.deployment.plan.pp;
    const hw::System& sys = e.systems[static_cast<std::size_t>(plan.system)];
    double tokens = sys.accelerator.hbm_bytes * sv.memory_fraction / std::max(fp.kv_bytes_per_token, 1.0) *
                    plan.deployment.plan.attn_dp;  // each attention-DP rank holds its own sequences' KV
    // Per node: a replica holds its device share of each lower tier (resolve_run.cpp).
    const double share = sv.tier_scope == TierScope::kNode ? static_cast<double>(plan.deployment.plan.devices()) /
                                                                 static_cast<double>(std::max(1, sys.accelerators))
                                                           : 1.0;
    tokens += (sv.host_bytes + sv.ssd_bytes + sv.remote_bytes) * share / std::max(replica_kv_bytes_per_token, 1.0);
    const double trace_units = ts.keyed_blocks * static_cast<double>(sessions.block_size_tokens) / unit;
    const double blocks = std::min(tokens / unit, trace_units);
    pb.kv = replicas * blocks * memory_constants::kBytesPerCachedBlock;
    pb.kv_detail = count_text(replicas) + " replica(s) x " + count_text(blocks) + " blocks x " +
                   bytes_text(memory_constants::kBytesPerCachedBlock);
  }

  // Upper bounds: every agent turns over at the fastest possible pace.
  double requests = ts.turns;
  if (e.workload.mode == ReplayMode::kClosedLoop) {
    const double turn_s = std::max(ts.mean_gap_s + ts.mean_out * step_s, step_s);
    requests = agents * std::ceil(dur_s / turn_s);
  } else if (e.workload.mode == ReplayMode::kPoisson) {
    requests = agents;
  }
  const double chunks = std::ceil(ts.mean_in / static_cast<double>(std::max(1LL, sv.max_batch_tokens)));
  const double steps = std::min(replicas * dur_s / step_s, requests * (ts.mean_out + chunks));
  pb.requests = requests * sizeof(metrics::RequestRecord);
  pb.steps = steps * sizeof(metrics::StepRecord);
  pb.requests_detail = "<= " + count_text(requests) + " requests x " + std::to_string(sizeof(metrics::RequestRecord)) + " B";
  pb.steps_detail = "<= " + count_text(steps) + " steps x " + std::to_string(sizeof(metrics::StepRecord)) + " B";
  pb.kept = kept_fraction * ((e.record_requests ? pb.requests : 0) + (e.record_steps ? pb.steps : 0));
  return pb;
}

double read_first_number(const std::string& path, const std::string& key) {
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!key.empty() && line.rfind(key, 0) != 0) continue;
    std::istringstream ss(key.empty() ? line : line.substr(key.size()));
    double v = -1;
    if (ss >> v) return v;
    return -1;  // e.g. "max": no limit
  }
  return -1;
}

}  // namespace

double trace_bytes(const wl::Trace& t) {
  double b = sizeof(wl::Trace) + static_cast<double>(t.name.capacity());
  for (const auto& s : t.sessions) {
    b += sizeof(wl::Session) + static_cast<double>(s.id.capacity() > 15 ? s.id.capacity() + 1 : 0);
    b += static_cast<double>(s.turns.capacity() * sizeof(wl::Turn));
    b += static_cast<double>(s.block_runs.capacity() * sizeof(wl::BlockRun));
  }
  return b + static_cast<double>((t.sessions.capacity() - t.sessions.size()) * sizeof(wl::Session));
}

MemoryEstimate estimate_memory(const Experiment& e, const wl::Trace& sessions, int threads, int ranks) {
  const TraceStats ts = trace_stats(sessions);
  PointBytes largest;
  double kept = 0, largest_kept = 0, points = 0;
  for (const auto& plan : e.plans) {
    if (!plan.pruned.empty()) continue;
    double max_level = 0;
    for (double level : e.workload.levels) {
      const PointBytes pb = point_bytes(e, sessions, ts, plan, level);
      if (pb.sim() > largest.sim()) largest = pb;
      kept += pb.kept;
      largest_kept = std::max(largest_kept, pb.kept);
      points += 1;
      max_level = std::max(max_level, level);
    }
    // SLO bisection: up to log2(levels) more points per tier, none larger than the largest level.
    if (e.workload.mode == ReplayMode::kClosedLoop && !e.slo_tiers.empty() && max_level > 2) {
      const double extra = static_cast<double>(e.slo_tiers.size()) * std::ceil(std::log2(max_level));
      kept += extra * point_bytes(e, sessions, ts, plan, max_level).kept;
      points += extra;
    }
  }
  const double per_rank_points = std::ceil(points / std::max(1, ranks));
  const double concurrent = std::max(1.0, std::min(static_cast<double>(std::max(1, threads)), per_rank_points));

  MemoryEstimate est;
  auto add = [&](std::string name, double bytes, std::string detail) {
    if (bytes > 0) est.components.push_back({std::move(name), bytes, std::move(detail)});
  };
  const std::string x = " x " + count_text(concurrent) + " concurrent run(s)";
  add("process baseline", memory_constants::kBaseBytes, "binary, libraries, catalogs");
  add("trace in memory", trace_bytes(sessions),
      count_text(ts.sessions) + " sessions, " + count_text(ts.turns) + " turns");
  add("KV block tables", largest.kv * concurrent, largest.kv_detail + x);
  add("agents in flight", largest.agents * concurrent, largest.agents_detail + x);
  add("recorded requests", largest.requests * concurrent, largest.requests_detail + x);
  add("recorded steps", largest.steps * concurrent, largest.steps_detail + x);
  add("kept results", kept * (ranks > 1 ? 2.0 : 1.0) + 2 * largest_kept,
      "window records of " + count_text(points) + " run(s), held for the sinks");
  std::stable_sort(est.components.begin(), est.components.end(),
                   [](const MemoryComponent& a, const MemoryComponent& b) { return a.bytes > b.bytes; });
  for (const auto& c : est.components) est.total_bytes += c.bytes;
  return est;
}

double available_memory_bytes(double limit_bytes, const std::string& limit_name, std::string& source) {
  double avail = read_first_number("/proc/meminfo", "MemAvailable:");
  source = "MemAvailable in /proc/meminfo";
  if (avail > 0) {
    avail *= 1024;  // kB
  } else {
    avail = INFINITY;
    source = "no limit found";
  }
  const double cgroup = read_first_number("/sys/fs/cgroup/memory.max", "");
  if (cgroup > 0 && cgroup < avail) {
    avail = cgroup;
    source = "cgroup memory.max";
  }
  if (limit_bytes > 0 && limit_bytes < avail) {
    avail = limit_bytes;
    source = limit_name;
  }
  return avail;
}

MemoryComponent trace_load_bytes(const Experiment& e) {
  namespace fs = std::filesystem;
  MemoryComponent c{"trace file, while loading", 0, ""};
  if (e.workload.use_generator || e.workload.trace_path.empty()) return c;
  std::error_code ec;
  const fs::path path(e.workload.trace_path);
  double disk = 0, load = 0;
  auto add = [&](const fs::path& f) {
    const auto size = static_cast<double>(fs::file_size(f, ec));
    if (ec) return;
    const bool h5 = f.extension() == ".h5" || f.extension() == ".hdf5" || e.workload.format == "agentsim-h5";
    disk += size;
    load += size * (h5 ? memory_constants::kTraceLoadBytesPerH5Byte : memory_constants::kTraceLoadBytesPerFileByte);
  };
  if (fs::is_directory(path, ec)) {
    for (const auto& entry : fs::recursive_directory_iterator(path, ec)) {
      if (entry.is_regular_file(ec)) add(entry.path());
    }
  } else if (fs::is_regular_file(path, ec)) {
    add(path);
  }
  c.bytes = load;
  c.detail = bytes_text(disk) + " on disk x " + count_text(disk > 0 ? load / disk : 0) + ", measured bound";
  return c;
}

void check_memory(const Experiment& e, const MemoryEstimate& est, double available_bytes, const std::string& source) {
  if (est.total_bytes <= available_bytes) return;
  std::string msg = "estimated peak memory " + bytes_text(est.total_bytes) + " exceeds the " +
                    bytes_text(available_bytes) + " available (" + source + "); largest parts:";
  for (std::size_t i = 0; i < est.components.size() && i < 3; ++i) {
    const auto& c = est.components[i];
    msg += "\n  " + c.name + ": " + bytes_text(c.bytes) + " (" + c.detail + ")";
  }
  msg += "\nto fit: fewer agents (workload.concurrency), a shorter warmup + window, a sampled (smaller) trace, "
         "record: {steps: false, requests: false}, fewer threads (-j), or raise limits.memory / --max-memory";
  throw core::Error(core::SourceLocation{e.file, 0, "limits.memory"}, msg);
}

}  // namespace agentsim::exp
