#include "experiments/output/summary_csv.hpp"

#include <limits>

#include "sim/core/csv_writer.hpp"

namespace agentsim::exp {

std::string summary_csv(const std::vector<RunResult>& runs) {
  // The issue-8 contract columns first, then the skeleton's and the run's identity.
  core::CsvWriter w({"system", "deployment", "concurrency", "output_tok_s", "total_tok_s", "power_w",
                     "output_tok_s_per_mw", "total_tok_s_per_mw", "agents_per_mw", "agent_output_tok_s_p50",
                     "agent_output_tok_s_p10", "ttft_s_p50", "ttft_s_p90", "cache_hit_rate", "input_tok_s",
                     "computed_input_tok_s", "ttft_s_p99", "itl_s_mean", "requests", "rejected", "turns_truncated",
                     "steps", "mean_batch_sequences", "kv_capacity_tokens", "window_s", "provisioned_w", "level",
                     "run_id", "seed", "bisection", "skipped", "prefix_hit_rate", "hit_rate_hbm", "hit_rate_host",
                     "hit_rate_ssd", "hit_rate_remote", "evictions", "bytes_loaded", "bytes_stored", "preemptions",
                     "kv_transfer_bytes", "kv_occupancy_mean", "kv_occupancy_peak",
                     // error bands (experiments/prediction_bands.hpp): empty outside every validated regime
                     "band_regime", "output_tok_s_lo", "output_tok_s_hi", "total_tok_s_per_mw_lo",
                     "total_tok_s_per_mw_hi", "agent_output_tok_s_p50_lo", "agent_output_tok_s_p50_hi"});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  for (const auto& r : runs) {
    const auto& s = r.summary;
    const double mw = r.power.power_w * 1e-6;
    const double hit = metrics::cache_hit_rate(s);
    w.text(r.system).text(r.deployment).integer(r.concurrency).number(s.output_tok_s).number(s.total_tok_s);
    w.number(r.power.power_w).number(mw > 0 ? s.output_tok_s / mw : nan).number(mw > 0 ? s.total_tok_s / mw : nan);
    w.number(mw > 0 ? r.level / mw : nan).number(s.agent_output_tok_s_p50).number(s.agent_output_tok_s_p10);
    w.number(s.ttft_s_p50).number(s.ttft_s_p90).number(hit).number(s.input_tok_s).number(s.computed_input_tok_s);
    w.number(s.ttft_s_p99).number(s.itl_s_mean).integer(s.requests).integer(s.rejected).integer(r.turns_truncated);
    w.integer(s.steps).number(s.mean_batch_sequences).integer(r.kv_capacity_tokens).number(s.window_s);
    w.number(r.power.provisioned_w).number(r.level).text(r.id).unsigned_integer(r.seed);
    w.integer(r.bisection ? 1 : 0).text(r.skipped).number(s.prefix_hit_rate).number(s.hit_rate_hbm);
    w.number(s.hit_rate_host).number(s.hit_rate_ssd).number(s.hit_rate_remote).integer(s.evictions);
    w.number(s.bytes_loaded).number(s.bytes_stored).integer(s.preemptions).number(s.kv_transfer_bytes);
    w.number(s.kv_occupancy_mean).number(s.kv_occupancy_peak);
    const PredictionBand& b = r.band;
    const double total_mw = mw > 0 ? s.total_tok_s / mw : nan;
    w.text(b.regime).number(s.output_tok_s * b.throughput_lo).number(s.output_tok_s * b.throughput_hi);
    w.number(total_mw * b.throughput_lo).number(total_mw * b.throughput_hi);
    w.number(s.agent_output_tok_s_p50 * b.agent_lo).number(s.agent_output_tok_s_p50 * b.agent_hi);
    w.end_row();
  }
  return w.str();
}

}  // namespace agentsim::exp
