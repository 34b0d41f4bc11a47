#include "experiments/run/sweep_executor.hpp"
#include "experiments/config/deployment_name.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "experiments/run/resolve_run.hpp"
#include "sim/core/atomic_write.hpp"
#include "experiments/run/run_codec.hpp"
#include "sim/core/parallel_for.hpp"
#include "sim/core/rng.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;

namespace {

class ProgressBar {
 public:
  ProgressBar(bool on, std::size_t total, std::string label) : on_(on), total_(total), label_(std::move(label)) {
    draw();
  }
  void tick() {
    if (!on_) return;
    const std::lock_guard<std::mutex> lock(mu_);
    ++done_;
    draw();
  }
  ~ProgressBar() {
    if (on_ && total_ > 0) std::fputs("\n", stderr);
  }

 private:
  void draw() const {
    if (!on_ || total_ == 0) return;
    constexpr int kWidth = 30;
    const int filled = static_cast<int>(kWidth * done_ / total_);
    std::string bar(static_cast<std::size_t>(filled), '=');
    bar.resize(kWidth, ' ');
    std::fprintf(stderr, "\r%-10s [%s] %zu/%zu", label_.c_str(), bar.c_str(), done_, total_);
    std::fflush(stderr);
  }
  bool on_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::string label_;
  std::mutex mu_;
};

void put_u64(std::string& out, std::uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }
std::uint64_t get_u64(const std::string& in, std::size_t& at) {
  if (in.size() - at < sizeof(std::uint64_t)) throw core::Error("gathered runs truncated");
  std::uint64_t v;
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

// A kept run on disk: magic, payload length, FNV-1a of the payload, payload. Files are
// renamed into place whole, so a kill leaves either a complete file or a dot-named temp
// file; the frame also catches a torn or corrupted file from any other cause.
constexpr std::uint64_t kCacheMagic = 0x6167736d72756e32ULL;  // "agsmrun2": runs encoded with recomputed tokens

std::uint64_t fnv1a(const std::string& s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string frame(const std::string& payload) {
  std::string out;
  put_u64(out, kCacheMagic);
  put_u64(out, payload.size());
  put_u64(out, fnv1a(payload));
  return out + payload;
}

// Whether `file` is a whole, intact frame; its payload goes to `payload`.
bool unframe(const std::string& file, std::string& payload) {
  std::size_t at = 0;
  try {
    if (get_u64(file, at) != kCacheMagic) return false;
    const std::uint64_t n = get_u64(file, at);
    const std::uint64_t sum = get_u64(file, at);
    if (file.size() - at != n) return false;
    payload = file.substr(at);
    return fnv1a(payload) == sum;
  } catch (const core::Error&) {
    return false;
  }
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

std::vector<std::vector<RunResult>> run_sharded(std::size_t tasks, const RunTask& task, const ExecOptions& opt,
                                                const SweepRanks& ranks, const std::string& label) {
  const auto rank = static_cast<std::size_t>(ranks.rank());
  const auto size = static_cast<std::size_t>(ranks.size());
  std::vector<std::size_t> mine;
  for (std::size_t i = rank; i < tasks; i += size) mine.push_back(i);
  std::vector<std::vector<RunResult>> local(mine.size());
  {
    ProgressBar bar(opt.progress && rank == 0 && tasks > 0, mine.size(), label);
    core::parallel_for(mine.size(), opt.threads, [&](std::size_t k) {
      local[k] = task(mine[k]);
      bar.tick();
    });
  }
  std::string packed;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    const std::string bytes = encode_runs(local[k]);
    put_u64(packed, mine[k]);
    put_u64(packed, bytes.size());
    packed += bytes;
  }
  std::vector<std::vector<RunResult>> out(tasks);
  if (size == 1) {
    for (std::size_t k = 0; k < mine.size(); ++k) out[mine[k]] = std::move(local[k]);
    return out;
  }
  // Ranks exchange encoded runs, so every rank holds the same bytes whatever ran where.
  for (const std::string& part : ranks.all_gather(packed)) {
    std::size_t at = 0;
    while (at < part.size()) {
      const std::uint64_t index = get_u64(part, at);
      const std::uint64_t n = get_u64(part, at);
      if (index >= tasks || part.size() - at < n) throw core::Error("gathered runs malformed");
      out[index] = decode_runs(part.substr(at, n));
      at += n;
    }
  }
  return out;
}

namespace {

// Where cached_run keeps the run of `p`. The key covers the resolved experiment, so an edited
// experiment never reuses stale runs.
fs::path kept_run_file(const Experiment& e, const SweepPoint& p, const ExecOptions& opt) {
  const std::uint64_t key = core::derive_seed(core::derive_seed(0, e.resolved_yaml), p.id + (p.bisection ? "/b" : ""));
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.run", static_cast<unsigned long long>(key));
  return fs::path(opt.cache_dir) / name;
}

// The fields run_sweep_point sets on every run of `p`, simulated or skipped.
void label_run(RunResult& r, const Experiment& e, const SweepPoint& p) {
  const Plan& plan = e.plans[static_cast<std::size_t>(p.plan)];
  r.id = p.id;
  r.system = e.systems[static_cast<std::size_t>(plan.system)].name;
  r.deployment = deployment_name(e, plan);
  r.seed = p.seed;
  r.bisection = p.bisection;
}

RunResult skipped_run(const Experiment& e, const SweepPoint& p, const std::string& why) {
  RunResult r;
  r.level = p.level;
  r.concurrency = e.workload.mode == ReplayMode::kClosedLoop ? static_cast<int>(p.level) : 0;
  r.skipped = why;
  label_run(r, e, p);
  return r;
}

}  // namespace

std::vector<RunResult> run_points(const Experiment& e, const wl::Trace& sessions, const std::vector<SweepPoint>& points,
                                  const ExecOptions& opt, const SweepRanks& ranks, const std::string& label) {
  // Pods spread over ranks for a fixed `pods: N` with every pod simulated; per-replica or
  // representative pods (a count per plan, one simulation per share) run on one rank's threads.
  const int pods = e.serving.pods;
  std::vector<RunResult> out(points.size());
  if (pods <= 1 || ranks.size() <= 1 || e.serving.pod_sampling != PodSampling::kAll) {
    auto made = run_sharded(
        points.size(), [&](std::size_t i) { return std::vector<RunResult>{cached_run(e, sessions, points[i], opt)}; },
        opt, ranks, label);
    for (std::size_t i = 0; i < points.size(); ++i) out[i] = std::move(made[i].front());
    return out;
  }
  // Every rank walks the points alike: kept runs and runs that cannot be simulated are settled
  // here; the rest become pods x runs tasks.
  std::vector<std::size_t> fresh;  // indices into points
  std::vector<RunSpec> specs;
  std::vector<bool> done(points.size(), false);
  for (std::size_t i = 0; i < points.size(); ++i) {
    const SweepPoint& p = points[i];
    if (!opt.cache_dir.empty()) {
      if (auto kept = read_kept_run(kept_run_file(e, p, opt).string()); kept && kept->id == p.id) {
        ++*opt.reused_runs;
        out[i] = std::move(*kept);
        done[i] = true;
        continue;
      }
      if (const long long n = opt.new_runs->fetch_add(1); opt.stop_after >= 0 && n >= opt.stop_after) {
        throw SweepInterrupted("sweep stopped after " + std::to_string(opt.stop_after) +
                               " new runs (--stop-after)");
      }
    }
    try {
      RunSpec spec = resolve_run(e, e.plans[static_cast<std::size_t>(p.plan)], sessions.block_size_tokens);
      check_kv_fits(e, spec);
      specs.push_back(std::move(spec));
      fresh.push_back(i);
    } catch (const core::Error& err) {
      out[i] = skipped_run(e, p, err.what());
      done[i] = true;
    }
  }
  // Pod q of fresh run k is task k x pods + q, on rank task mod size; an engine error in a pod
  // skips its run (the first failing pod's message, in pod order).
  const std::size_t tasks = fresh.size() * static_cast<std::size_t>(pods);
  const auto rank = static_cast<std::size_t>(ranks.rank());
  const auto size = static_cast<std::size_t>(ranks.size());
  std::vector<std::size_t> mine;
  for (std::size_t t = rank; t < tasks; t += size) mine.push_back(t);
  std::vector<std::string> encoded(mine.size());
  {
    ProgressBar bar(opt.progress && rank == 0 && tasks > 0, mine.size(), label);
    core::parallel_for(mine.size(), opt.threads, [&](std::size_t k) {
      const std::size_t run = mine[k] / static_cast<std::size_t>(pods);
      const int pod = static_cast<int>(mine[k] % static_cast<std::size_t>(pods));
      const SweepPoint& p = points[fresh[run]];
      std::string bytes;
      try {
        bytes = "P" + encode_pod(run_pod(e, specs[run], sessions, p.level, p.seed, pod));
      } catch (const core::Error& err) {
        bytes = std::string("E") + err.what();
      }
      encoded[k] = std::move(bytes);
      bar.tick();
    });
  }
  std::string packed;
  for (std::size_t k = 0; k < mine.size(); ++k) {
    put_u64(packed, mine[k]);
    put_u64(packed, encoded[k].size());
    packed += encoded[k];
  }
  encoded.clear();
  std::vector<std::string> gathered(tasks);
  for (const std::string& part : ranks.all_gather(packed)) {
    std::size_t at = 0;
    while (at < part.size()) {
      const std::uint64_t index = get_u64(part, at);
      const std::uint64_t n = get_u64(part, at);
      if (index >= tasks || part.size() - at < n) throw core::Error("gathered pods malformed");
      gathered[index] = part.substr(at, n);
      at += n;
    }
  }
  for (std::size_t k = 0; k < fresh.size(); ++k) {
    const std::size_t i = fresh[k];
    const SweepPoint& p = points[i];
    std::vector<PodOutcome> parts;
    std::string error;
    for (int q = 0; q < pods && error.empty(); ++q) {
      std::string& bytes = gathered[k * static_cast<std::size_t>(pods) + static_cast<std::size_t>(q)];
      if (bytes.empty()) throw core::Error("gathered pods incomplete");
      if (bytes[0] == 'E') error = bytes.substr(1);
      else parts.push_back(decode_pod(bytes.substr(1)));
      std::string().swap(bytes);
    }
    if (!error.empty()) {
      out[i] = skipped_run(e, p, error);
    } else {
      out[i] = merge_pods(e, specs[k], p.level, std::move(parts));
      label_run(out[i], e, p);
    }
    // The run's kept copy for --resume, written by one rank.
    if (!opt.cache_dir.empty() && i % size == rank) {
      core::write_file_atomically(kept_run_file(e, p, opt).string(), frame(encode_runs({out[i]})));
    }
  }
  return out;
}

RunResult cached_run(const Experiment& e, const wl::Trace& sessions, const SweepPoint& p, const ExecOptions& opt) {
  if (opt.cache_dir.empty()) return run_sweep_point(e, sessions, p, opt.threads);
  const fs::path file = kept_run_file(e, p, opt);
  if (auto kept = read_kept_run(file.string()); kept && kept->id == p.id) {
    ++*opt.reused_runs;
    return *kept;
  }
  if (const long long n = opt.new_runs->fetch_add(1); opt.stop_after >= 0 && n >= opt.stop_after) {
    throw SweepInterrupted("sweep stopped after " + std::to_string(opt.stop_after) + " new runs (--stop-after)");
  }
  RunResult r = run_sweep_point(e, sessions, p, opt.threads);
  core::write_file_atomically(file.string(), frame(encode_runs({r})));
  return r;
}

std::optional<RunResult> read_kept_run(const std::string& path) {
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) return std::nullopt;
  std::string payload;
  try {
    if (!unframe(slurp(path), payload)) return std::nullopt;
    auto runs = decode_runs(payload);
    if (runs.size() != 1) return std::nullopt;
    return std::move(runs[0]);
  } catch (const core::Error&) {
    // An intact frame this version cannot decode: rerun it, as for a damaged frame.
    return std::nullopt;
  }
}

std::size_t remove_temp_files(const std::string& dir) {
  std::size_t removed = 0;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() > 1 && name[0] == '.' && name.find(".tmp.") != std::string::npos && it->is_regular_file(ec)) {
      std::error_code ignored;
      removed += fs::remove(it->path(), ignored) ? 1 : 0;
    }
  }
  return removed;
}

}  // namespace agentsim::exp
