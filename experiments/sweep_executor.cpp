#include "experiments/sweep_executor.hpp"

#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "sim/core/atomic_write.hpp"
#include "experiments/run_codec.hpp"
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
constexpr std::uint64_t kCacheMagic = 0x6167736d72756e31ULL;  // "agsmrun1"

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
                                                const Cluster& cluster, const std::string& label) {
  const auto rank = static_cast<std::size_t>(cluster.rank());
  const auto size = static_cast<std::size_t>(cluster.size());
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
  for (const std::string& part : cluster.all_gather(packed)) {
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

RunResult cached_run(const Experiment& e, const wl::Trace& sessions, const SweepPoint& p, const ExecOptions& opt) {
  if (opt.cache_dir.empty()) return run_sweep_point(e, sessions, p, opt.threads);
  // The key covers the resolved experiment, so an edited experiment never reuses stale runs.
  const std::uint64_t key = core::derive_seed(core::derive_seed(0, e.resolved_yaml), p.id + (p.bisection ? "/b" : ""));
  char name[40];
  std::snprintf(name, sizeof name, "%016llx.run", static_cast<unsigned long long>(key));
  const fs::path file = fs::path(opt.cache_dir) / name;
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
