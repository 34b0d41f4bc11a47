#include "sim/serving/cluster.hpp"

#include "sim/core/error.hpp"

namespace agentsim::serving {

Cluster::Cluster(core::Simulator& sim, const wl::ModelSpec& model, const hw::System& system,
                 const ReplicaOptions& base, ClusterOptions opt, metrics::Recorder& recorder,
                 const hw::Topology* topology)
    : sim_(sim), opt_(opt), topology_(topology), kv_bytes_per_token_(model.kv_bytes_per_token()),
      router_(opt.router) {
  if (base.kv.kv_bytes_per_token > 0) kv_bytes_per_token_ = base.kv.kv_bytes_per_token;
  const bool disagg = opt_.prefill_replicas > 0;
  if (disagg && (opt_.decode_replicas <= 0 || !topology_)) {
    throw core::Error("disaggregation needs decode replicas and a topology");
  }
  const int n = disagg ? opt_.prefill_replicas + opt_.decode_replicas : opt_.replicas;
  if (n <= 0) throw core::Error("a cluster needs at least one replica");
  for (int i = 0; i < n; ++i) {
    ReplicaOptions ro = base;
    if (disagg) ro.role = i < opt_.prefill_replicas ? ReplicaRole::kPrefill : ReplicaRole::kDecode;
    replicas_.push_back(std::make_unique<Replica>(sim, model, system, ro, recorder, i));
    Replica* r = replicas_.back().get();
    (disagg && i >= opt_.prefill_replicas ? back_ : front_).push_back(r);
    if (disagg && i < opt_.prefill_replicas) {
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

double Cluster::transfer_s(int from, int to, long long tokens) {
  auto it = routes_.find({from, to});
  if (it == routes_.end()) {
    const hw::Route route =
        topology_->gpu_route(from * opt_.devices_per_replica, to * opt_.devices_per_replica);
    it = routes_.emplace(std::make_pair(from, to), std::make_pair(route.latency_s, route.bottleneck_Bps)).first;
  }
  const double per_device_bytes =
      static_cast<double>(tokens) * kv_bytes_per_token_ / static_cast<double>(opt_.devices_per_replica);
  return it->second.first + per_device_bytes / it->second.second;
}

void Cluster::handoff(int from, const Request& r, const metrics::RequestRecord& rec, CompletionFn done) {
  const std::size_t pick = decode_router_.pick(r, back_, &back_loads_);
  Replica* dst = back_[pick];
  const double t = transfer_s(from, dst->id(), r.input_tokens);
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
