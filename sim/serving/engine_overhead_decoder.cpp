#include "sim/serving/engine_overhead_decoder.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace agentsim::serving {
using core::OptionSpec;
using core::YamlNode;

std::array<EngineOverhead, kEngineCount> decode_engines(const YamlNode& n) {
  static constexpr std::array kTop = {OptionSpec{"engines", "map", "", "one entry per serving engine"}};
  static constexpr std::array kKeys = {
      OptionSpec{"fixed", "time", "", "host time per eager step"},
      OptionSpec{"graph_fixed", "time", "", "host time per decode-only step replayed from a graph"},
      OptionSpec{"graph_max_sequences", "integer", "", "largest decode batch with a captured graph (>= 1)"},
      OptionSpec{"per_sequence", "time", "", "host time per sequence in the batch"},
      OptionSpec{"per_token", "time", "", "host time per new token"},
      OptionSpec{"batch_limits", "per_dp_rank | per_replica", "",
                 "whether max_batch_tokens and max_sequences bind each attention-DP rank or the replica"},
      OptionSpec{"mixed_batches", "bool", "",
                 "whether a step runs prefill chunks with the decodes (false: prefill steps run alone)"},
      OptionSpec{"overlap_scheduler", "bool", "",
                 "whether the per-sequence and per-token host work runs alongside the accelerators' step"},
      OptionSpec{"request_latency", "time", "",
                 "a request's path outside the engine loop (client to scheduler, first chunk back), once per request"},
      OptionSpec{"decode_all_to_all_nic_efficiency", "number", "0",
                 "fraction of the links' rate a decode step's all-to-all reaches where the EP group spans systems "
                 "(0: the network efficiency)"},
  };
  n.check_keys(kTop);
  const YamlNode engines = n.at("engines");
  std::vector<OptionSpec> names;
  for (const auto& [name, e] : kEngineNames) names.push_back(OptionSpec{name, "map", "", ""});
  engines.check_keys(names);
  std::array<EngineOverhead, kEngineCount> out{};
  for (const auto& [name, e] : kEngineNames) {
    const YamlNode x = engines.at(name);
    x.check_keys(kKeys);
    EngineOverhead& o = out[static_cast<std::size_t>(e)];
    const auto time = [&](std::string_view key) {
      const double v = x.at(key).as_quantity(core::Dimension::kTime);
      if (!(v >= 0 && v < 1)) throw x.at(key).error("expected a time in [0, 1s)");
      return v;
    };
    o.fixed_s = time("fixed");
    o.graph_fixed_s = time("graph_fixed");
    o.per_sequence_s = time("per_sequence");
    o.per_token_s = time("per_token");
    const long long g = x.at("graph_max_sequences").as_integer();
    if (g < 1 || g > (1 << 20)) throw x.at("graph_max_sequences").error("expected an integer in [1, 1048576]");
    o.graph_max_sequences = static_cast<int>(g);
    const std::string limits = x.at("batch_limits").as_string();
    if (limits != "per_dp_rank" && limits != "per_replica") {
      throw x.at("batch_limits").error("expected per_dp_rank or per_replica, got '" + limits + "'");
    }
    o.limits_per_dp_rank = limits == "per_dp_rank";
    o.mixed_batches = x.at("mixed_batches").as_bool();
    o.overlap_scheduler = x.at("overlap_scheduler").as_bool();
    o.request_latency_s = x.at("request_latency").as_quantity(core::Dimension::kTime);
    if (!(o.request_latency_s >= 0 && o.request_latency_s <= 10)) {
      throw x.at("request_latency").error("expected a time in [0, 10s]");
    }
    if (auto v = x.find("decode_all_to_all_nic_efficiency")) {
      o.decode_all_to_all_nic_efficiency = v->as_number();
      if (!(o.decode_all_to_all_nic_efficiency > 0 && o.decode_all_to_all_nic_efficiency <= 1)) {
        throw v->error("expected a fraction in (0, 1]");
      }
    }
  }
  return out;
}

}  // namespace agentsim::serving
