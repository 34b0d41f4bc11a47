#include "experiments/output/results_h5.hpp"
#include "experiments/config/deployment_name.hpp"

#include <H5Cpp.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <variant>

#include "experiments/output/readoff_table.hpp"
#include "sim/core/atomic_write.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;

namespace {

// Table storage: chunks of about 1 MiB, shuffled and deflated at zlib level 6 (the usual
// speed/size trade-off; deflate output is deterministic, so files stay byte-identical).
constexpr std::size_t kChunkBytes = std::size_t{1} << 20;
constexpr unsigned kDeflateLevel = 6;

// One column of a table: numbers (float64) or strings (fixed length).
struct Column {
  std::string name;
  std::variant<std::vector<double>, std::vector<std::string>> values;
};

void string_attribute(hid_t obj, const std::string& name, const std::string& value) {
  const hid_t type = H5Tcopy(H5T_C_S1);
  H5Tset_size(type, value.empty() ? 1 : value.size());
  const hid_t space = H5Screate(H5S_SCALAR);
  const hid_t a = H5Acreate2(obj, name.c_str(), type, space, H5P_DEFAULT, H5P_DEFAULT);
  H5Awrite(a, type, value.empty() ? "" : value.c_str());
  H5Aclose(a);
  H5Sclose(space);
  H5Tclose(type);
}

hid_t make_group(hid_t parent, const std::string& name) {
  const hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
  H5Pset_obj_track_times(gcpl, 0);
  const hid_t g = H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, gcpl, H5P_DEFAULT);
  H5Pclose(gcpl);
  if (g < 0) throw core::Error("cannot create HDF5 group " + name);
  return g;
}

hid_t write_table(hid_t parent, const std::string& name, const std::vector<Column>& cols) {
  std::size_t rows = 0;
  std::vector<std::size_t> widths, offsets;
  std::size_t row_bytes = 0;
  for (const auto& c : cols) {
    std::size_t w = sizeof(double);
    if (const auto* s = std::get_if<std::vector<std::string>>(&c.values)) {
      w = 1;
      for (const auto& v : *s) w = std::max(w, v.size() + 1);
      rows = s->size();
    } else {
      rows = std::get<std::vector<double>>(c.values).size();
    }
    offsets.push_back(row_bytes);
    widths.push_back(w);
    row_bytes += w;
  }
  const hid_t type = H5Tcreate(H5T_COMPOUND, row_bytes);
  std::vector<hid_t> str_types;
  for (std::size_t i = 0; i < cols.size(); ++i) {
    if (std::holds_alternative<std::vector<double>>(cols[i].values)) {
      H5Tinsert(type, cols[i].name.c_str(), offsets[i], H5T_NATIVE_DOUBLE);
    } else {
      const hid_t st = H5Tcopy(H5T_C_S1);
      H5Tset_size(st, widths[i]);
      H5Tinsert(type, cols[i].name.c_str(), offsets[i], st);
      str_types.push_back(st);
    }
  }
  std::vector<char> buf(rows * row_bytes, '\0');
  for (std::size_t i = 0; i < cols.size(); ++i) {
    for (std::size_t r = 0; r < rows; ++r) {
      char* at = buf.data() + r * row_bytes + offsets[i];
      if (const auto* d = std::get_if<std::vector<double>>(&cols[i].values)) {
        std::memcpy(at, &(*d)[r], sizeof(double));
      } else {
        const auto& s = std::get<std::vector<std::string>>(cols[i].values)[r];
        std::copy(s.begin(), s.end(), at);  // the buffer is zeroed: HDF5's null-padded fixed strings
      }
    }
  }
  const hsize_t dims[1] = {rows};
  const hid_t space = H5Screate_simple(1, dims, nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  H5Pset_obj_track_times(dcpl, 0);
  if (rows > 0) {
    // Chunks of about kChunkBytes, byte-shuffled (each column's bytes together) and deflated.
    const hsize_t chunk[1] = {std::clamp<hsize_t>(kChunkBytes / std::max<std::size_t>(row_bytes, 1), 1, rows)};
    if (H5Pset_chunk(dcpl, 1, chunk) < 0 || H5Pset_shuffle(dcpl) < 0 || H5Pset_deflate(dcpl, kDeflateLevel) < 0) {
      H5Pclose(dcpl);
      throw core::Error("cannot set up compression of HDF5 dataset " + name + " (HDF5 without zlib?)");
    }
  }
  const hid_t ds = H5Dcreate2(parent, name.c_str(), type, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Pclose(dcpl);
  if (ds < 0) throw core::Error("cannot create HDF5 dataset " + name);
  if (rows > 0 && H5Dwrite(ds, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf.data()) < 0) {
    H5Dclose(ds);
    throw core::Error("cannot write HDF5 dataset " + name);
  }
  H5Sclose(space);
  for (hid_t st : str_types) H5Tclose(st);
  H5Tclose(type);
  return ds;
}

template <class T, class F>
std::vector<double> col(const std::vector<T>& v, F f) {
  std::vector<double> out;
  out.reserve(v.size());
  for (const auto& x : v) out.push_back(static_cast<double>(f(x)));
  return out;
}
template <class T, class F>
std::vector<std::string> scol(const std::vector<T>& v, F f) {
  std::vector<std::string> out;
  out.reserve(v.size());
  for (const auto& x : v) out.push_back(f(x));
  return out;
}

std::vector<Column> readoff_columns(const std::vector<ReadoffRow>& rows) {
  using R = ReadoffRow;
  return {
      {"system", scol(rows, [](const R& r) { return r.system; })},
      {"deployment", scol(rows, [](const R& r) { return r.deployment; })},
      {"target_kind", scol(rows, [](const R& r) { return r.target_kind; })},
      {"target_agent_tok_s", col(rows, [](const R& r) { return r.target_agent_tok_s; })},
      {"total_tok_s_per_mw", col(rows, [](const R& r) { return r.total_tok_s_per_mw; })},
      {"output_tok_s_per_mw", col(rows, [](const R& r) { return r.output_tok_s_per_mw; })},
      {"agents_per_mw", col(rows, [](const R& r) { return r.agents_per_mw; })},
      {"in_swept_range", col(rows, [](const R& r) { return r.in_swept_range ? 1.0 : 0.0; })},
      {"concurrency", col(rows, [](const R& r) { return r.concurrency; })},
      {"note", scol(rows, [](const R& r) { return r.note; })},
      {"runner_up", scol(rows, [](const R& r) { return r.runner_up; })},
  };
}

void close_ds(hid_t ds) { H5Dclose(ds); }

std::string index_name(std::size_t i) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%04zu", i);
  return buf;
}

}  // namespace

std::string source_revision() {
#ifdef AGENTSIM_SOURCE_REVISION
  return AGENTSIM_SOURCE_REVISION;
#else
  return "unknown";
#endif
}

void write_results_h5(const std::string& path, const Experiment& e, const SweepOutcome& o) {
  core::write_atomically(path, [&](const std::string& tmp) {
    H5::Exception::dontPrint();
    const hid_t file = H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) throw core::Error(core::SourceLocation{path, 0, ""}, "cannot create HDF5 file");
    try {
      const hid_t root = H5Gopen2(file, "/", H5P_DEFAULT);
      string_attribute(root, "format", "agentsim-results/1");
      string_attribute(root, "experiment", e.name);
      string_attribute(root, "model", e.model.name);
      string_attribute(root, "config_yaml", e.resolved_yaml);
      string_attribute(root, "source_revision", source_revision());
      string_attribute(root, "power_denominator",
                       "runtime facility power: modelled wall power (accelerators incl. idle ones, host CPUs and "
                       "memory, NICs, scale-up switches, fans and misc, PSU loss; no scale-out switches) x PUE, "
                       "window average");
      H5Gclose(root);

      using RR = RunResult;
      const auto& runs = o.runs;
      close_ds(write_table(
          file, "runs",
          {
              {"run_id", scol(runs, [](const RR& r) { return r.id; })},
              {"system", scol(runs, [](const RR& r) { return r.system; })},
              {"deployment", scol(runs, [](const RR& r) { return r.deployment; })},
              {"level", col(runs, [](const RR& r) { return r.level; })},
              {"concurrency", col(runs, [](const RR& r) { return r.concurrency; })},
              {"seed", col(runs, [](const RR& r) { return static_cast<double>(r.seed); })},
              {"bisection", col(runs, [](const RR& r) { return r.bisection ? 1.0 : 0.0; })},
              {"skipped", scol(runs, [](const RR& r) { return r.skipped; })},
              {"output_tok_s", col(runs, [](const RR& r) { return r.summary.output_tok_s; })},
              {"total_tok_s", col(runs, [](const RR& r) { return r.summary.total_tok_s; })},
              {"input_tok_s", col(runs, [](const RR& r) { return r.summary.input_tok_s; })},
              {"computed_input_tok_s", col(runs, [](const RR& r) { return r.summary.computed_input_tok_s; })},
              {"recomputed_input_tok_s", col(runs, [](const RR& r) { return r.summary.recomputed_input_tok_s; })},
              {"agent_output_tok_s_p50",
               col(runs, [](const RR& r) { return r.summary.agent_output_tok_s_p50; })},
              {"agent_output_tok_s_p10",
               col(runs, [](const RR& r) { return r.summary.agent_output_tok_s_p10; })},
              {"ttft_s_p50", col(runs, [](const RR& r) { return r.summary.ttft_s_p50; })},
              {"ttft_s_p90", col(runs, [](const RR& r) { return r.summary.ttft_s_p90; })},
              {"ttft_s_p99", col(runs, [](const RR& r) { return r.summary.ttft_s_p99; })},
              {"itl_s_mean", col(runs, [](const RR& r) { return r.summary.itl_s_mean; })},
              {"requests", col(runs, [](const RR& r) { return r.summary.requests; })},
              {"steps", col(runs, [](const RR& r) { return r.summary.steps; })},
              {"window_s", col(runs, [](const RR& r) { return r.summary.window_s; })},
              {"power_w", col(runs, [](const RR& r) { return r.power.power_w; })},
              {"provisioned_w", col(runs, [](const RR& r) { return r.power.provisioned_w; })},
              {"accelerators_w", col(runs, [](const RR& r) { return r.power.accelerators_w; })},
              {"systems", col(runs, [](const RR& r) { return r.power.systems; })},
              {"accelerators", col(runs, [](const RR& r) { return r.power.accelerators; })},
              {"step_compute_s", col(runs, [](const RR& r) { return r.power.compute_s; })},
              {"step_memory_s", col(runs, [](const RR& r) { return r.power.memory_s; })},
              {"step_comm_s", col(runs, [](const RR& r) { return r.power.comm_s; })},
              {"step_overhead_s", col(runs, [](const RR& r) { return r.power.overhead_s; })},
              {"kv_capacity_tokens", col(runs, [](const RR& r) { return r.kv_capacity_tokens; })},
          }));
      close_ds(write_table(file, "readoffs", readoff_columns(o.readoffs)));
      close_ds(write_table(file, "plan_readoffs", readoff_columns(o.plan_readoffs)));
      std::vector<int> plan_index;
      for (std::size_t i = 0; i < e.plans.size(); ++i) plan_index.push_back(static_cast<int>(i));
      close_ds(write_table(
          file, "plans",
          {
              {"system",
               scol(plan_index,
                    [&](int i) {
                      return e.systems[static_cast<std::size_t>(e.plans[static_cast<std::size_t>(i)].system)]
                          .name;
                    })},
              {"deployment",
               scol(plan_index, [&](int i) { return deployment_name(e, e.plans[static_cast<std::size_t>(i)]); })},
              {"pruned",
               scol(plan_index, [&](int i) { return e.plans[static_cast<std::size_t>(i)].pruned; })},
          }));

      const hid_t req = make_group(file, "requests");
      const hid_t stp = make_group(file, "steps");
      using Q = metrics::RequestRecord;
      using S = metrics::StepRecord;
      for (std::size_t i = 0; i < runs.size(); ++i) {
        const auto& q = runs[i].requests;
        if (e.record_requests) {
          const hid_t ds =
              write_table(req, index_name(i),
                          {
                              {"agent", col(q, [](const Q& r) { return r.agent; })},
                              {"input_tokens", col(q, [](const Q& r) { return r.input_tokens; })},
                              {"cached_tokens", col(q, [](const Q& r) { return r.cached_tokens; })},
                              {"output_tokens", col(q, [](const Q& r) { return r.output_tokens; })},
                              {"arrival_s", col(q, [](const Q& r) { return r.arrival_s; })},
                              {"first_token_s", col(q, [](const Q& r) { return r.first_token_s; })},
                              {"last_token_s", col(q, [](const Q& r) { return r.last_token_s; })},
                          });
          string_attribute(ds, "run_id", runs[i].id);
          close_ds(ds);
        }
        const auto& s = runs[i].steps;
        if (e.record_steps) {
          const hid_t ds =
              write_table(stp, index_name(i),
                          {
                              {"replica", col(s, [](const S& r) { return r.replica; })},
                              {"start_s", col(s, [](const S& r) { return r.start_s; })},
                              {"end_s", col(s, [](const S& r) { return r.end_s; })},
                              {"decode_tokens", col(s, [](const S& r) { return r.decode_tokens; })},
                              {"prefill_tokens", col(s, [](const S& r) { return r.prefill_tokens; })},
                              {"recomputed_tokens", col(s, [](const S& r) { return r.recomputed_tokens; })},
                              {"cached_tokens", col(s, [](const S& r) { return r.cached_tokens; })},
                              {"sampled_tokens", col(s, [](const S& r) { return r.sampled_tokens; })},
                              {"batch_sequences", col(s, [](const S& r) { return r.batch_sequences; })},
                              {"compute_s", col(s, [](const S& r) { return r.compute_s; })},
                              {"memory_s", col(s, [](const S& r) { return r.memory_s; })},
                              {"comm_s", col(s, [](const S& r) { return r.comm_s; })},
                              {"overhead_s", col(s, [](const S& r) { return r.overhead_s; })},
                          });
          string_attribute(ds, "run_id", runs[i].id);
          close_ds(ds);
        }
      }
      H5Gclose(req);
      H5Gclose(stp);

      const hid_t curves = make_group(file, "curves");
      for (std::size_t p = 0; p < e.plans.size(); ++p) {
        if (!e.plans[p].pruned.empty()) continue;
        std::vector<RunResult> pts;
        for (const RunResult* r : plan_runs(runs, plan_prefix(e, static_cast<int>(p)), true))
          pts.push_back(*r);
        const hid_t ds =
            write_table(curves, index_name(p),
                        {
                            {"concurrency", col(pts, [](const RR& r) { return r.level; })},
                            {"agent_output_tok_s_p50",
                             col(pts, [](const RR& r) { return r.summary.agent_output_tok_s_p50; })},
                            {"agent_output_tok_s_p10",
                             col(pts, [](const RR& r) { return r.summary.agent_output_tok_s_p10; })},
                            {"total_tok_s_per_mw",
                             col(pts, [](const RR& r) { return per_mw(r.summary.total_tok_s, r); })},
                            {"output_tok_s_per_mw",
                             col(pts, [](const RR& r) { return per_mw(r.summary.output_tok_s, r); })},
                            {"agents_per_mw", col(pts, [](const RR& r) { return per_mw(r.level, r); })},
                            {"ttft_s_p90", col(pts, [](const RR& r) { return r.summary.ttft_s_p90; })},
                        });
        string_attribute(ds, "system", e.systems[static_cast<std::size_t>(e.plans[p].system)].name);
        string_attribute(ds, "deployment", deployment_name(e, e.plans[p]));
        close_ds(ds);
      }
      H5Gclose(curves);
      H5Fclose(file);
    } catch (...) {
      H5Fclose(file);
      throw;
    }
  });
}

}  // namespace agentsim::exp
