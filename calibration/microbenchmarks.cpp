#include "calibration/microbenchmarks.hpp"

#include <ctime>

#include "calibration/cpu/cpu_microbenchmarks.hpp"
#include "sim/core/error.hpp"
#include "sim/core/suggest.hpp"
#ifdef AGENTSIM_HAVE_CUDA
#include "calibration/cuda/cuda_microbenchmarks.hpp"
#endif

namespace agentsim::calib {

std::vector<std::string> available_backends() {
#ifdef AGENTSIM_HAVE_CUDA
  return {"cpu", "cuda"};
#else
  return {"cpu"};
#endif
}

std::unique_ptr<Microbenchmarks> make_microbenchmarks(const std::string& backend) {
  if (backend == "cpu") return make_cpu_microbenchmarks();
#ifdef AGENTSIM_HAVE_CUDA
  if (backend == "cuda") return make_cuda_microbenchmarks();
#endif
  const auto names = available_backends();
  std::string msg = "unknown or unavailable calibration backend '" + backend + "'";
  if (backend == "cuda") msg += " (this build has no CUDA backend: nvcc was not found when configuring)";
  const std::string near = core::closest_match(backend, names);
  if (!near.empty() && near != backend) msg += " (did you mean '" + near + "'?)";
  throw core::Error(core::SourceLocation{"", 0, "--backend"}, msg + "; available: " + core::join_names(names));
}

std::string utc_timestamp() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

}  // namespace agentsim::calib
