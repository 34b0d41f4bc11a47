// Disaggregated prefill/decode: the KV of every prompt the prefill pool computes arrives at the
// decode pool (tokens and bytes conserved), each pool on its own plan and devices, and KV
// transfers that share links (the sending GPUs' NICs) share their bandwidth.
#include <gtest/gtest.h>

#include "hwmodels/topology.hpp"
#include "sim/serving/cluster.hpp"
#include "tests/sim/serving/catalog_fixtures.hpp"

namespace agentsim::serving {
namespace {

struct KvTransfer : ::testing::Test {
  const serving::test::FixtureCatalog& catalog = serving::test::fixture_catalog();
  const wl::ModelSpec& model = catalog.models.get("llama-3.1-70b");
  const hw::System& system = catalog.systems.get("hgx-h200");
  ReplicaOptions options(int tp) const {
    ReplicaOptions o;
    o.cost = StepCostOptions{tp, hw::Efficiency{0.7, 0.8, 0.8}, 2e-3};
    o.kv_capacity_tokens = kv_capacity_tokens(model, system, tp, 0.9);
    o.kv.unit_tokens = 64;
    return o;
  }
  hw::Topology topology(int systems) const {
    hw::ClusterHardware hc;
    hc.system = system;
    hc.systems = systems;
    return hw::build_topology(hc);
  }
  // One prefill replica of `prefill_devices` GPUs and two decode replicas of 8.
  static ClusterOptions one_prefill_two_decode(int prefill_devices) {
    ClusterOptions co;
    co.prefill_replicas = 1;
    co.decode_replicas = 2;
    co.devices_per_replica = 8;
    co.prefill_devices_per_replica = prefill_devices;
    return co;
  }
};

// Two transfers booked at once from one prefill replica (both over its GPUs' NICs) finish after
// twice the transfer time of one; a third booked once they are done goes at full speed again.
TEST_F(KvTransfer, TransfersSharingANicShareItsBandwidth) {
  core::Simulator sim;
  metrics::Recorder rec;
  const hw::Topology topo = topology(3);
  const ClusterOptions co = one_prefill_two_decode(8);
  Cluster cluster(sim, model, system, options(8), co, rec, &topo);
  const long long tokens = 32768;
  const hw::Route to1 = topo.gpu_route(0, 8), to2 = topo.gpu_route(0, 16);
  ASSERT_GT(to1.hops, 2) << "system 0 to system 1 crosses the scale-out fabric";
  const double alone_s = static_cast<double>(tokens) * model.kv_bytes_per_token() / 8 / to1.bottleneck_Bps;
  const double first = cluster.reserve_transfer(0, 1, 0, tokens);
  const double second = cluster.reserve_transfer(0, 2, 0, tokens);
  EXPECT_NEAR(first, to1.latency_s + alone_s, 1e-12);
  // The second waits for the NICs the first occupies: twice the bytes through the same links.
  EXPECT_NEAR(second - to2.latency_s, 2 * alone_s, 1e-9);
  EXPECT_NEAR((second - to2.latency_s) / (first - to1.latency_s), 2.0, 1e-6);
  double later = 0;
  sim.at(core::to_ticks(1.0 + 2 * first), [&] { later = cluster.reserve_transfer(0, 1, 0, tokens); });
  sim.run_until(core::to_ticks(2.0 + 2 * first));
  EXPECT_NEAR(later, first, 1e-12) << "the links are free again";
}

// Prefill on one tp=4 replica, decode on two tp=8 replicas after it: every request's prompt is
// computed once by the prefill pool, its KV (prompt tokens x KV bytes per token) crosses once,
// and the decode pool computes no prompt token and emits the rest of every answer.
TEST_F(KvTransfer, ADisaggregatedRunConservesTokensAndKvBytes) {
  core::Simulator sim;
  metrics::Recorder rec;
  const hw::Topology topo = topology(3);
  const ClusterOptions co = one_prefill_two_decode(4);
  const ReplicaOptions prefill = options(4);
  Cluster cluster(sim, model, system, options(8), co, rec, &topo, &prefill);
  EXPECT_EQ(cluster.first_device(0), 0);
  EXPECT_EQ(cluster.first_device(1), 4);
  EXPECT_EQ(cluster.first_device(2), 12);
  long long input = 0, output = 0;
  int done = 0;
  const int n = 12;
  for (int i = 0; i < n; ++i) {
    Request q;
    q.agent = i;
    q.input_tokens = 1000 + 700 * i;
    q.output_tokens = 5 + 3 * i;
    input += q.input_tokens;
    output += q.output_tokens;
    sim.at(core::to_ticks(0.01 * i), [&cluster, q, &done] {
      cluster.submit(q, [&done](const metrics::RequestRecord&) { ++done; });
    });
  }
  sim.run_until(core::to_ticks(60.0));
  ASSERT_EQ(done, n);
  const metrics::CacheCounters c = cluster.counters();
  EXPECT_EQ(c.kv_transfers, n);
  EXPECT_DOUBLE_EQ(c.kv_transfer_bytes, static_cast<double>(input) * model.kv_bytes_per_token());
  long long prefilled = 0, decode_prefilled = 0, prefill_sampled = 0, decode_sampled = 0;
  for (const auto& s : rec.steps()) {
    (s.replica == 0 ? prefilled : decode_prefilled) += s.prefill_tokens;
    (s.replica == 0 ? prefill_sampled : decode_sampled) += static_cast<long long>(s.sampled_tokens) * s.steps;
  }
  EXPECT_EQ(prefilled, input) << "the prefill pool computes every prompt token once";
  EXPECT_EQ(decode_prefilled, 0) << "the decode pool receives the KV, it computes none";
  EXPECT_EQ(prefill_sampled, n) << "the prefill pool emits each first token";
  EXPECT_EQ(decode_sampled, output - n) << "the decode pool emits the rest of every answer";
}

}  // namespace
}  // namespace agentsim::serving
