#include "experiments/traceio/trace_h5.hpp"

#include <unistd.h>

#include <H5Cpp.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "sim/core/atomic_write.hpp"
#include "sim/core/error.hpp"

namespace agentsim::exp {
namespace fs = std::filesystem;

namespace {

constexpr const char* kFormat = "agentsim-trace-h5";
constexpr int kVersion = 1;
constexpr hsize_t kChunk = 1 << 16;

template <typename T>
const H5::PredType& h5_type();
template <> const H5::PredType& h5_type<std::int64_t>() { return H5::PredType::NATIVE_INT64; }
template <> const H5::PredType& h5_type<std::int32_t>() { return H5::PredType::NATIVE_INT32; }
template <> const H5::PredType& h5_type<std::uint64_t>() { return H5::PredType::NATIVE_UINT64; }
template <> const H5::PredType& h5_type<std::uint32_t>() { return H5::PredType::NATIVE_UINT32; }
template <> const H5::PredType& h5_type<std::uint8_t>() { return H5::PredType::NATIVE_UINT8; }
template <> const H5::PredType& h5_type<double>() { return H5::PredType::NATIVE_DOUBLE; }

// Byte shuffle + deflate: the columns are small integers and repeated values, which
// is what makes this form several times smaller than the JSON text.
template <typename T>
void write_column(H5::Group& g, const char* name, const std::vector<T>& v) {
  const hsize_t dims[1] = {v.size()};
  H5::DSetCreatPropList plist;
  if (!v.empty()) {
    const hsize_t chunk[1] = {std::min<hsize_t>(v.size(), kChunk)};
    plist.setChunk(1, chunk);
    plist.setShuffle();
    plist.setDeflate(6);
  }
  H5::DataSet ds = g.createDataSet(name, h5_type<T>(), H5::DataSpace(1, dims), plist);
  if (!v.empty()) ds.write(v.data(), h5_type<T>());
}

template <typename T>
std::vector<T> read_column(const H5::Group& g, const std::string& group, const char* name, std::string& current) {
  current = group + "/" + name;
  H5::DataSet ds = g.openDataSet(name);
  H5::DataSpace space = ds.getSpace();
  if (space.getSimpleExtentNdims() != 1) throw H5::DataSetIException("read", "dataset must be one-dimensional");
  hsize_t n = 0;
  space.getSimpleExtentDims(&n);
  std::vector<T> v(n);
  if (n > 0) ds.read(v.data(), h5_type<T>());
  return v;
}

void write_string_attribute(H5::H5Object& obj, const char* name, const std::string& value) {
  const H5::StrType type(H5::PredType::C_S1, value.empty() ? 1 : value.size());
  obj.createAttribute(name, type, H5::DataSpace(H5S_SCALAR)).write(type, value);
}

void write_int_attribute(H5::H5Object& obj, const char* name, int value) {
  obj.createAttribute(name, H5::PredType::NATIVE_INT, H5::DataSpace(H5S_SCALAR)).write(H5::PredType::NATIVE_INT, &value);
}

std::string read_string_attribute(const H5::H5Object& obj, const char* name) {
  const H5::Attribute a = obj.openAttribute(name);
  std::string value;
  a.read(a.getStrType(), value);
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

void write_u64_attribute(H5::H5Object& obj, const char* name, std::uint64_t value) {
  obj.createAttribute(name, H5::PredType::NATIVE_UINT64, H5::DataSpace(H5S_SCALAR)).write(H5::PredType::NATIVE_UINT64, &value);
}

int read_int_attribute(const H5::H5Object& obj, const char* name) {
  int value = 0;
  obj.openAttribute(name).read(H5::PredType::NATIVE_INT, &value);
  return value;
}

void write_file(const wl::Trace& trace, const std::string& path) {
  H5::H5File f(path, H5F_ACC_TRUNC);
  write_string_attribute(f, "format", kFormat);
  write_int_attribute(f, "version", kVersion);
  write_string_attribute(f, "name", trace.name);
  write_int_attribute(f, "block_size", trace.block_size_tokens);
  write_string_attribute(f, "block_ids", trace.global_block_ids ? "global" : "per-tree");
  if (trace.global_block_ids && trace.replay_block_ids_from != wl::Trace::kAllBlockIdsShared) {
    write_u64_attribute(f, "replay_block_ids_from", trace.replay_block_ids_from);
  }

  std::vector<std::uint8_t> id_chars;
  std::vector<std::uint64_t> id_end, turn_end, run_end;
  std::vector<std::int32_t> root, spawn_parent, spawn_after;
  std::vector<std::uint8_t> spawn_async;
  std::vector<double> start_s;
  std::vector<std::int64_t> in, out;
  std::vector<double> gap_s, t_s, api_s, ttft_s;
  std::vector<std::uint8_t> gap, stop, brk;
  std::vector<std::int32_t> prefix_session, prefix_turn, prefix_blocks;
  std::vector<std::uint32_t> runs_begin, runs_end, run_count;
  std::vector<std::uint64_t> run_first;
  for (const auto& s : trace.sessions) {
    id_chars.insert(id_chars.end(), s.id.begin(), s.id.end());
    id_end.push_back(id_chars.size());
    root.push_back(s.root);
    start_s.push_back(s.start_s);
    spawn_parent.push_back(s.spawn.parent_session);
    spawn_after.push_back(s.spawn.after_turn);
    spawn_async.push_back(s.spawn.async ? 1 : 0);
    for (const auto& t : s.turns) {
      in.push_back(t.input_tokens);
      out.push_back(t.output_tokens);
      gap_s.push_back(t.gap_after_s);
      gap.push_back(static_cast<std::uint8_t>(t.gap_kind));
      stop.push_back(static_cast<std::uint8_t>(t.stop));
      brk.push_back(t.prefix_break ? 1 : 0);
      prefix_session.push_back(t.prefix_parent.session);
      prefix_turn.push_back(t.prefix_parent.turn);
      prefix_blocks.push_back(t.prefix_blocks);
      runs_begin.push_back(t.runs_begin);
      runs_end.push_back(t.runs_end);
      t_s.push_back(t.t_s);
      api_s.push_back(t.api_time_s);
      ttft_s.push_back(t.ttft_s);
    }
    turn_end.push_back(in.size());
    for (const auto& r : s.block_runs) {
      run_first.push_back(r.first);
      run_count.push_back(r.count);
    }
    run_end.push_back(run_first.size());
  }
  H5::Group sg = f.createGroup("sessions");
  write_column(sg, "id_chars", id_chars);
  write_column(sg, "id_end", id_end);
  write_column(sg, "root", root);
  write_column(sg, "start_s", start_s);
  write_column(sg, "spawn_parent", spawn_parent);
  write_column(sg, "spawn_after_turn", spawn_after);
  write_column(sg, "spawn_async", spawn_async);
  write_column(sg, "turn_end", turn_end);
  write_column(sg, "run_end", run_end);
  H5::Group tg = f.createGroup("turns");
  write_column(tg, "in", in);
  write_column(tg, "out", out);
  write_column(tg, "gap_s", gap_s);
  write_column(tg, "gap", gap);
  write_column(tg, "stop", stop);
  write_column(tg, "break", brk);
  write_column(tg, "prefix_session", prefix_session);
  write_column(tg, "prefix_turn", prefix_turn);
  write_column(tg, "prefix_blocks", prefix_blocks);
  write_column(tg, "runs_begin", runs_begin);
  write_column(tg, "runs_end", runs_end);
  write_column(tg, "t_s", t_s);
  write_column(tg, "api_s", api_s);
  write_column(tg, "ttft_s", ttft_s);
  H5::Group rg = f.createGroup("block_runs");
  write_column(rg, "first", run_first);
  write_column(rg, "count", run_count);
}

}  // namespace

bool has_hdf5_signature(const std::string& path) {
  static constexpr std::array<char, 8> kSig = {'\x89', 'H', 'D', 'F', '\r', '\n', '\x1a', '\n'};
  std::ifstream in(path, std::ios::binary);
  std::array<char, 8> head{};
  if (!in.read(head.data(), head.size())) return false;
  return head == kSig;
}

void write_trace_h5(const wl::Trace& trace, const std::string& path) {
  core::write_atomically(path, [&](const std::string& tmp) {
    try {
      H5::Exception::dontPrint();
      write_file(trace, tmp);
    } catch (const H5::Exception& e) {
      throw core::Error(core::SourceLocation{path, 0, ""}, "cannot write HDF5 trace: " + e.getDetailMsg());
    }
  });
}

wl::Trace read_trace_h5(const std::string& path) {
  std::string current;
  auto bad = [&](const std::string& what) { return core::Error(core::SourceLocation{path, 0, current}, what); };
  if (!fs::is_regular_file(path)) throw core::Error(core::SourceLocation{path, 0, ""}, "cannot open trace file");
  if (!has_hdf5_signature(path)) throw core::Error(core::SourceLocation{path, 0, ""}, "not an HDF5 file");
  wl::Trace trace;
  try {
    H5::Exception::dontPrint();
    H5::H5File f(path, H5F_ACC_RDONLY);
    current = "format";
    if (read_string_attribute(f, "format") != kFormat) throw bad(std::string("expected \"") + kFormat + "\"");
    current = "version";
    if (read_int_attribute(f, "version") != kVersion) throw bad("expected 1");
    current = "name";
    trace.name = read_string_attribute(f, "name");
    current = "block_size";
    trace.block_size_tokens = read_int_attribute(f, "block_size");
    current = "block_ids";
    trace.global_block_ids = read_string_attribute(f, "block_ids") == "global";
    current = "replay_block_ids_from";
    if (trace.global_block_ids && f.attrExists("replay_block_ids_from")) {
      f.openAttribute("replay_block_ids_from").read(H5::PredType::NATIVE_UINT64, &trace.replay_block_ids_from);
    }

    const H5::Group sg = f.openGroup("sessions");
    const auto id_chars = read_column<std::uint8_t>(sg, "/sessions", "id_chars", current);
    const auto id_end = read_column<std::uint64_t>(sg, "/sessions", "id_end", current);
    const auto root = read_column<std::int32_t>(sg, "/sessions", "root", current);
    const auto start_s = read_column<double>(sg, "/sessions", "start_s", current);
    const auto spawn_parent = read_column<std::int32_t>(sg, "/sessions", "spawn_parent", current);
    const auto spawn_after = read_column<std::int32_t>(sg, "/sessions", "spawn_after_turn", current);
    const auto spawn_async = read_column<std::uint8_t>(sg, "/sessions", "spawn_async", current);
    const auto turn_end = read_column<std::uint64_t>(sg, "/sessions", "turn_end", current);
    const auto run_end = read_column<std::uint64_t>(sg, "/sessions", "run_end", current);
    const H5::Group tg = f.openGroup("turns");
    const auto in = read_column<std::int64_t>(tg, "/turns", "in", current);
    const auto out = read_column<std::int64_t>(tg, "/turns", "out", current);
    const auto gap_s = read_column<double>(tg, "/turns", "gap_s", current);
    const auto gap = read_column<std::uint8_t>(tg, "/turns", "gap", current);
    const auto stop = read_column<std::uint8_t>(tg, "/turns", "stop", current);
    const auto brk = read_column<std::uint8_t>(tg, "/turns", "break", current);
    const auto prefix_session = read_column<std::int32_t>(tg, "/turns", "prefix_session", current);
    const auto prefix_turn = read_column<std::int32_t>(tg, "/turns", "prefix_turn", current);
    const auto prefix_blocks = read_column<std::int32_t>(tg, "/turns", "prefix_blocks", current);
    const auto runs_begin = read_column<std::uint32_t>(tg, "/turns", "runs_begin", current);
    const auto runs_end = read_column<std::uint32_t>(tg, "/turns", "runs_end", current);
    const auto t_s = read_column<double>(tg, "/turns", "t_s", current);
    const auto api_s = read_column<double>(tg, "/turns", "api_s", current);
    const auto ttft_s = read_column<double>(tg, "/turns", "ttft_s", current);
    const H5::Group rg = f.openGroup("block_runs");
    const auto run_first = read_column<std::uint64_t>(rg, "/block_runs", "first", current);
    const auto run_count = read_column<std::uint32_t>(rg, "/block_runs", "count", current);

    const std::size_t ns = id_end.size();
    for (const auto* col : {&root, &spawn_parent, &spawn_after}) {
      if (col->size() != ns) throw bad("session columns differ in length");
    }
    if (start_s.size() != ns || spawn_async.size() != ns || turn_end.size() != ns || run_end.size() != ns) {
      throw bad("session columns differ in length");
    }
    const std::size_t nt = in.size();
    for (const auto* col : {&gap, &stop, &brk}) {
      if (col->size() != nt) throw bad("turn columns differ in length");
    }
    for (const auto* col : {&gap_s, &t_s, &api_s, &ttft_s}) {
      if (col->size() != nt) throw bad("turn columns differ in length");
    }
    if (out.size() != nt || prefix_session.size() != nt || prefix_turn.size() != nt || prefix_blocks.size() != nt ||
        runs_begin.size() != nt || runs_end.size() != nt || run_count.size() != run_first.size()) {
      throw bad("turn or block-run columns differ in length");
    }
    current = "/sessions";
    trace.sessions.resize(ns);
    std::uint64_t id0 = 0, turn0 = 0, run0 = 0;
    for (std::size_t i = 0; i < ns; ++i) {
      if (id_end[i] < id0 || id_end[i] > id_chars.size() || turn_end[i] < turn0 || turn_end[i] > nt ||
          run_end[i] < run0 || run_end[i] > run_first.size()) {
        throw bad("session " + std::to_string(i) + ": offsets out of range");
      }
      wl::Session& s = trace.sessions[i];
      s.id.assign(id_chars.begin() + static_cast<std::ptrdiff_t>(id0), id_chars.begin() + static_cast<std::ptrdiff_t>(id_end[i]));
      s.root = root[i];
      s.start_s = start_s[i];
      s.spawn = wl::SpawnLink{spawn_parent[i], spawn_after[i], spawn_async[i] != 0};
      if (s.spawn.parent_session >= static_cast<std::int32_t>(ns)) throw bad("session " + std::to_string(i) + ": spawn parent out of range");
      for (auto r = run0; r < run_end[i]; ++r) s.block_runs.push_back(wl::BlockRun{run_first[r], run_count[r]});
      for (auto k = turn0; k < turn_end[i]; ++k) {
        if (gap[k] > static_cast<std::uint8_t>(wl::GapKind::kHuman) || stop[k] > static_cast<std::uint8_t>(wl::StopReason::kOther) ||
            runs_begin[k] > runs_end[k] || runs_end[k] > s.block_runs.size() || prefix_session[k] >= static_cast<std::int32_t>(ns)) {
          throw bad("turn " + std::to_string(k) + ": value out of range");
        }
        wl::Turn t(in[k], out[k], gap_s[k]);
        t.gap_kind = static_cast<wl::GapKind>(gap[k]);
        t.stop = static_cast<wl::StopReason>(stop[k]);
        t.prefix_break = brk[k] != 0;
        t.prefix_parent = wl::TurnRef{prefix_session[k], prefix_turn[k]};
        t.prefix_blocks = prefix_blocks[k];
        t.runs_begin = runs_begin[k];
        t.runs_end = runs_end[k];
        t.t_s = t_s[k];
        t.api_time_s = api_s[k];
        t.ttft_s = ttft_s[k];
        s.turns.push_back(t);
      }
      id0 = id_end[i];
      turn0 = turn_end[i];
      run0 = run_end[i];
    }
  } catch (const H5::Exception& e) {
    throw bad("cannot read HDF5 trace: " + e.getDetailMsg());
  }
  return trace;
}

}  // namespace agentsim::exp
