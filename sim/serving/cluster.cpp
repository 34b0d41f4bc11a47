#include "sim/serving/cluster.hpp"

#include <algorithm>

#include "sim/core/error.hpp"

namespace agentsim::serving {

Cluster::Cluster(core::Simulator& sim, const wl::ModelSpec& model, const hw::System& system,
                 const ReplicaOptions& base, ClusterOptions opt, metrics::Recorder& recorder,
                 const hw::Topology* topology, const ReplicaOptions* prefill)
    : sim_(sim), opt_(opt), topology_(topology), kv_bytes_per_token_(model.kv_bytes_per_token()),
      router_(opt.router), decode_router_(opt.decode_router) {
  if (base.kv.kv_bytes_per_token > 0) kv_bytes_per_token_ = base.kv.kv_bytes_per_token;
  const bool disagg = opt_.prefill_replicas > 0;
  if (disagg && (opt_.decode_replicas <= 0 || !topology_)) {
    throw core::Error("disaggregation needs decode replicas and a topology");
  }
  if (opt_.prefill_devices_per_replica <= 0) opt_.prefill_devices_per_replica = opt_.devices_per_replica;
  const ReplicaOptions& front = prefill ? *prefill : base;
  prefill_plan_ = front.cost.plan;
  decode_plan_ = base.cost.plan;
  const int n = disagg ? opt_.prefill_replicas + opt_.decode_replicas : opt_.replicas;
  if (n <= 0) throw core::Error("a cluster needs at least one replica");
  if (disagg) {
    const long long devices = static_cast<long long>(opt_.prefill_replicas) * opt_.prefill_devices_per_replica +
                              static_cast<long long>(opt_.decode_replicas) * opt_.devices_per_replica;
    if (devices > topology_->gpu_count()) {
      throw core::Error("the prefill and decode pools need " + std::to_string(devices) + " GPUs; the topology has " +
                        std::to_string(topology_->gpu_count()));
    }
    link_free_s_.assign(static_cast<std::size_t>(topology_->links()), 0.0);
  }
  next_rank_.assign(static_cast<std::size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const bool prefills = disagg && i < opt_.prefill_replicas;
    ReplicaOptions ro = prefills ? front : base;
    if (disagg) ro.role = prefills ? ReplicaRole::kPrefill : ReplicaRole::kDecode;
    replicas_.push_back(std::make_unique<Replica>(sim, model, system, ro, recorder, i));
    Replica* r = replicas_.back().get();
    (disagg && !prefills ? back_ : front_).push_back(r);
    if (prefills) {
      r->set_handoff([this, i](const Request& q, const metrics::RequestRecord& rec, CompletionFn done) {
        handoff(i, q, rec, std::move(done));
      });
    }
  }
  front_loads_.reset(front_.size());
  back_loads_.reset(back_.size());
  for (std::size_t i = 0; i < front_.size(); ++i) front_[i]->mirror_load(&front_loads_, i);
  for (std::size_t i = 0; i < back_.size(); ++i) back_[i]->mirror_load(&back_loads_, i);
}

void Cluster::submit(const Request& r, CompletionFn done) {
  front_[router_.pick(r, front_, &front_loads_)]->submit(r, std::move(done));
}

int Cluster::first_device(int i) const {
  if (opt_.prefill_replicas <= 0) return i * opt_.devices_per_replica;
  if (i < opt_.prefill_replicas) return i * opt_.prefill_devices_per_replica;
  return opt_.prefill_replicas * opt_.prefill_devices_per_replica + (i - opt_.prefill_replicas) * opt_.devices_per_replica;
}

const hw::Route& Cluster::route(int a, int b) {
  auto it = routes_.find({a, b});
  if (it == routes_.end()) it = routes_.emplace(std::make_pair(a, b), topology_->gpu_route(a, b)).first;
  return it->second;
}

double Cluster::transfer_s(int from, int to, long long tokens) {
  const hw::Route& r = route(first_device(from), first_device(to));
  const double per_device_bytes =
      static_cast<double>(tokens) * kv_bytes_per_token_ / static_cast<double>(opt_.devices_per_replica);
  return r.latency_s + per_device_bytes / r.bottleneck_Bps;
}

double Cluster::reserve_transfer(int from, int to, int rank, long long tokens) {
  // The devices holding one sequence's KV: one attention-DP rank's TP group in every pipeline stage.
  auto rank_devices = [](int first, const wl::ParallelPlan& p, int dp_rank) {
    std::vector<int> out;
    for (int s = 0; s < p.pp; ++s) {
      for (int t = 0; t < p.tp; ++t) out.push_back(first + s * p.devices_per_stage() + dp_rank * p.tp + t);
    }
    return out;
  };
  const wl::ParallelPlan& sp = opt_.prefill_replicas > 0 ? prefill_plan_ : decode_plan_;
  const std::vector<int> src = rank_devices(first_device(from), sp, 0);
  const std::vector<int> dst = rank_devices(first_device(to), decode_plan_, rank);
  // One stream per device of the larger side, each moving an equal share.
  const std::size_t streams = std::max(src.size(), dst.size());
  const double bytes = static_cast<double>(tokens) * kv_bytes_per_token_ / static_cast<double>(streams);
  const double now = sim_.now_s();
  double arrived_s = 0;  // from now
  for (std::size_t k = 0; k < streams; ++k) {
    const hw::Route& r = route(src[k % src.size()], dst[k % dst.size()]);
    double wait_s = 0;  // until every link of the route is free
    for (const int l : r.links) wait_s = std::max(wait_s, link_free_s_[static_cast<std::size_t>(l)] - now);
    const double end_s = wait_s + (r.links.empty() ? 0.0 : bytes / r.bottleneck_Bps);
    for (const int l : r.links) link_free_s_[static_cast<std::size_t>(l)] = now + end_s;
    arrived_s = std::max(arrived_s, wait_s > 0 ? end_s + r.latency_s : r.latency_s + (end_s - wait_s));
  }
  return arrived_s;
}

void Cluster::handoff(int from, const Request& r, const metrics::RequestRecord& rec, CompletionFn done) {
  const std::size_t pick = decode_router_.pick(r, back_, &back_loads_);
  Replica* dst = back_[pick];
  // The KV lands on the decode replica's attention-DP ranks in turn.
  int& next = next_rank_[static_cast<std::size_t>(dst->id())];
  const int rank = next;
  next = (next + 1) % std::max(1, decode_plan_.attn_dp);
  const double t = reserve_transfer(from, dst->id(), rank, r.input_tokens);
  ++transfers_.kv_transfers;
  transfers_.kv_transfer_bytes += static_cast<double>(r.input_tokens) * kv_bytes_per_token_;
  transfers_.kv_transfer_s += t;
  sim_.after(core::to_ticks(t), [dst, r, rec, done = std::move(done)]() mutable {
    dst->submit_prefilled(r, rec, std::move(done));
  });
}

metrics::CacheCounters Cluster::counters() const {
  metrics::CacheCounters c = transfers_;
  for (const auto& r : replicas_) c.add(r->kv().counters());
  return c;
}

}  // namespace agentsim::serving
