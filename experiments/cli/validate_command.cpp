// agentsim validate EXP.yaml --measured FILE.csv|DIR [--cv] [--json] [--since DATE] [-j N]
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <thread>
#include <tuple>

#include <nlohmann/json.hpp>

#include "calibration/closed_loop_check.hpp"
#include "calibration/error_bands.hpp"
#include "calibration/measured_sources.hpp"
#include "calibration/run_date.hpp"
#include "calibration/system_comparison.hpp"
#include "calibration/validation_report.hpp"
#include "experiments/config/catalog.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/cli/option_values.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/prediction_bands.hpp"
#include "experiments/run/validation_fit.hpp"
#include "experiments/run/validation_runner.hpp"
#include "sim/core/atomic_write.hpp"
#include "sim/core/error.hpp"
#include "sim/core/parallel_for.hpp"

namespace agentsim::cli {
namespace {

using Preds = std::vector<std::vector<double>>;
constexpr std::size_t kEngines = std::size(serving::kEngineNames);

// A skip reason with its quoted specifics removed, to count reasons by kind.
std::string reason_kind(const std::string& r) {
  static const std::regex kQuoted("'[^']*'");
  static const std::regex kWhere("duplicate of .*");
  return std::regex_replace(std::regex_replace(r, kQuoted, "'…'"), kWhere, "duplicate of an earlier row");
}

// The engine model with the fitted parameters set: the graph-replayed decode host time to
// `theta` (the eager step keeps its catalog margin above it) and, unless NaN, the request
// latency to `request_s`.
serving::EngineOverhead with_parameters(const serving::EngineOverhead& catalog, double theta, double request_s) {
  serving::EngineOverhead o = catalog;
  o.fixed_s = theta + std::max(0.0, catalog.fixed_s - catalog.graph_fixed_s);
  o.graph_fixed_s = theta;
  if (!std::isnan(request_s)) o.request_latency_s = request_s;
  return o;
}

// Simulations keyed by (row, host time, acceptance, request latency), each run once.
class Simulations {
 public:
  explicit Simulations(const std::vector<exp::ValidationRow>& rows) : rows_(rows) {}
  struct Job {
    std::size_t row;
    double theta;             // NaN: the catalog's engine model
    double tokens_per_step = NAN;  // NaN: the card's acceptance (only fit_acceptance rows read it)
    double request_s = NAN;        // NaN: the catalog's request latency
  };
  void run(const std::vector<Job>& jobs, int threads) {
    std::vector<Job> todo;
    for (Job j : jobs) {
      if (!rows_[j.row].fit_acceptance) j.tokens_per_step = NAN;
      if (!done_.count(key(j))) todo.push_back(j), done_[key(j)] = {};
    }
    std::vector<std::vector<double>> out(todo.size());
    core::parallel_for(todo.size(), threads, [&](std::size_t i) {
      const exp::ValidationRow& r = rows_[todo[i].row];
      const serving::EngineOverhead& cat = r.experiment.serving.engine_overhead;
      out[i] = exp::predict_row(r, std::isnan(todo[i].theta) ? cat : with_parameters(cat, todo[i].theta, todo[i].request_s),
                                todo[i].tokens_per_step);
    });
    for (std::size_t i = 0; i < todo.size(); ++i) done_[key(todo[i])] = std::move(out[i]);
    simulations_ += static_cast<int>(todo.size());
  }
  const std::vector<double>& get(std::size_t row, double theta, double tokens_per_step = NAN,
                                 double request_s = NAN) const {
    return done_.at(key({row, theta, rows_[row].fit_acceptance ? tokens_per_step : NAN, request_s}));
  }
  int simulations() const { return simulations_; }

 private:
  using Key = std::tuple<std::size_t, long long, long long, long long>;
  static Key key(const Job& j) {
    const auto q = [](double v) { return std::isnan(v) ? -1 : std::llround(v * 1e9); };
    return {j.row, q(j.theta), q(j.tokens_per_step), q(j.request_s)};
  }
  const std::vector<exp::ValidationRow>& rows_;
  std::map<Key, std::vector<double>> done_;
  int simulations_ = 0;
};

// The fitted parameters of one fit (all rows, or all but one group).
struct Fitted {
  std::array<double, std::size(serving::kEngineNames)> graph_fixed_s;      // per engine
  std::array<double, std::size(serving::kEngineNames)> request_latency_s;  // per engine
  double tokens_per_step = NAN;  // random-prompt acceptance; NaN when no row needs it
};

struct MetricRow {
  std::string metric;
  int rows = 0;
  double in_pct = NAN, cv_pct = NAN, in_max = NAN, cv_max = NAN;
  double in_bias = NAN, cv_bias = NAN;  // mean signed error, percent
};

// MAPE per metric over `idx` rows for the in-sample and (when given) CV predictions.
std::vector<MetricRow> metric_table(const std::vector<calib::MeasuredRun>& runs, const std::vector<std::size_t>& idx,
                                    const Preds& in, const Preds* cv) {
  std::vector<calib::MeasuredRun> sub;
  Preds pin, pcv;
  for (std::size_t i : idx) {
    sub.push_back(runs[i]);
    pin.push_back(in[i]);
    if (cv) pcv.push_back((*cv)[i]);
  }
  const calib::ValidationReport a = calib::compare(sub, pin);
  std::vector<MetricRow> out;
  for (const auto& s : a.summaries) out.push_back({s.metric, s.rows, s.mape_pct, NAN, s.max_abs_pct, NAN, s.mean_pct, NAN});
  if (cv) {
    const calib::ValidationReport b = calib::compare(sub, pcv);
    for (const auto& s : b.summaries) {
      for (auto& o : out) {
        if (o.metric == s.metric) o.cv_pct = s.mape_pct, o.cv_max = s.max_abs_pct, o.cv_bias = s.mean_pct;
      }
    }
  }
  return out;
}

nlohmann::ordered_json num(double v) { return std::isfinite(v) ? nlohmann::ordered_json(v) : nlohmann::ordered_json(); }

}  // namespace

Command add_validate_command(CLI::App& app, const Context& ctx) {
  struct Args {
    std::string experiment;
    std::string measured;
    bool json = false;
    bool cv = false;
    int jobs = 0;
    int worst = 5;
    std::string bands;
    std::string comparisons;
    std::string since;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("validate", "predict measured serving runs and report the errors");
  sub->add_option("experiment", args->experiment, "base experiment YAML (serving options, window, seed)")->required();
  sub->add_option("--measured", args->measured,
                  "measured-runs CSV, or a directory: every *.csv below it (schemas: docs/calibration.md)")
      ->required();
  sub->add_flag("--cv", args->cv,
                "fit the per-engine host time of a graph-replayed decode step and request latency (and the drafts' "
                "acceptance on random-token prompts) to the rows and report in-sample and leave-one-(system, model)-group-out "
                "cross-validated errors");
  sub->add_flag("--json", args->json, "print JSON");
  sub->add_option("-j,--jobs", args->jobs, "worker threads (0 = one per core)")
      ->capture_default_str()->check(non_negative_number());
  sub->add_option("--worst", args->worst, "how many worst errors and groups to list")->capture_default_str();
  sub->add_option("--since", args->since,
                  "predict only the rows measured on or after this date (YYYY-MM-DD); the others, and rows whose "
                  "source states no date, are listed as skipped");
  sub->add_option("--bands", args->bands,
                  "with --cv: write the error bands (CV error percentiles per validated regime) to this YAML "
                  "(the shipped one is calibration/data/error_bands.yaml)");
  sub->add_option("--comparisons", args->comparisons,
                  "with --cv: write the systems compared on the same work (CV) to this YAML (the shipped one, "
                  "calibration/data/system_comparisons.yaml, is what explain --compare quotes)");

  return Command{sub, [args, &ctx]() {
    const auto t0 = std::chrono::steady_clock::now();
    if (!args->bands.empty() && !args->cv) {
      throw core::Error(core::SourceLocation{"--bands", 0, ""}, "error bands come from CV errors: add --cv");
    }
    if (!args->comparisons.empty() && !args->cv) {
      throw core::Error(core::SourceLocation{"--comparisons", 0, ""},
                        "the shipped comparisons are of CV predictions: add --cv");
    }
    const exp::Experiment base = exp::load_experiment(args->experiment, ctx.root);
    const exp::Catalog catalog = exp::load_catalog(ctx.root);
    if (!args->since.empty() && !calib::is_run_date(args->since)) {
      throw core::Error(core::SourceLocation{"--since", 0, ""},
                        "expected a calendar date YYYY-MM-DD, got '" + args->since + "'");
    }
    const calib::MeasuredSet set = calib::load_measured(args->measured);
    std::vector<std::string> strict;
    for (const auto& f : set.files) {
      if (f.schema == "measured-runs") strict.push_back(f.file);
    }
    // --since: the rows measured on or after the date; the rest are listed with the reason.
    std::vector<calib::MeasuredRun> dated;
    std::vector<calib::SkippedRow> too_old;
    for (const auto& r : set.runs) {
      if (args->since.empty() || (!r.run_date.empty() && r.run_date >= args->since)) {
        dated.push_back(r);
      } else {
        too_old.push_back({r.file, r.line, r.id,
                           r.run_date.empty() ? "no measurement date in its source (--since " + args->since + ")"
                                              : "measured before --since " + args->since + " (run date '" +
                                                    r.run_date + "')"});
      }
    }
    const exp::PreparedRows prep = exp::prepare_rows(base, catalog, dated, strict);
    std::vector<calib::SkippedRow> skipped = set.skipped;
    skipped.insert(skipped.end(), too_old.begin(), too_old.end());
    skipped.insert(skipped.end(), prep.skipped.begin(), prep.skipped.end());
    if (prep.rows.empty()) {
      throw core::Error(core::SourceLocation{args->measured, 0, ""},
                        args->since.empty() ? "no row could be mapped"
                                            : "no row measured on or after --since " + args->since + " could be mapped");
    }
    if (args->cv && base.serving.step_overhead_set) {
      throw core::Error(core::SourceLocation{args->experiment, 0, "serving.step_overhead"},
                        "--cv fits the engines' host-time model, which serving.step_overhead replaces; remove it");
    }
    if (args->cv && base.serving.request_latency_set) {
      throw core::Error(core::SourceLocation{args->experiment, 0, "serving.request_latency"},
                        "--cv fits the engines' request latency, which serving.request_latency replaces; remove it");
    }
    const int threads = args->jobs > 0 ? args->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const std::size_t n = prep.rows.size();
    std::vector<calib::MeasuredRun> runs;
    std::vector<std::string> groups;
    for (const auto& r : prep.rows) {
      runs.push_back(r.run);
      runs.back().engine = std::string(serving::to_string(r.engine));  // "" resolved to the base experiment's
      groups.push_back(r.run.group());
    }
    const std::set<std::string> group_set(groups.begin(), groups.end());

    Simulations sims(prep.rows);
    Preds in(n), cv;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // Fitted parameters, in-sample and per fold.
    Fitted fit_in;
    fit_in.graph_fixed_s.fill(nan);
    fit_in.request_latency_s.fill(nan);
    int engine_rows[kEngines] = {};
    int latency_rows[kEngines] = {};  // rows with a TTFT, per engine
    int accept_rows = 0;
    std::map<std::string, Fitted> fit_fold;
    const auto eidx = [&](std::size_t i) { return static_cast<std::size_t>(prep.rows[i].engine); };
    // A disaggregated row's TTFT also holds the prefill-to-decode handover, priced only as the KV's
    // bytes over the link (docs/calibration.md, "Disaggregated rows"): it is predicted and reported,
    // not fitted to the request latency of the engines' unified path.
    const auto latency_fit_row = [&](std::size_t i) { return prep.rows[i].run.prefill_replicas == 0; };
    // Saturation rows (MLPerf Offline and Server) are predicted at the parameters fitted to the
    // closed-loop rows and do not enter the fit: their errors are out of sample even in-sample.
    const auto fit_row = [&](std::size_t i) { return prep.rows[i].run.scenario.empty(); };
    if (!args->cv) {
      std::vector<Simulations::Job> jobs;
      for (std::size_t i = 0; i < n; ++i) jobs.push_back({i, nan});
      sims.run(jobs, threads);
      for (std::size_t i = 0; i < n; ++i) in[i] = sims.get(i, nan);
    } else {
      std::vector<Simulations::Job> jobs;
      for (std::size_t i = 0; i < n; ++i) {
        if (!fit_row(i)) continue;
        for (double g : exp::kFitGrid) {
          if (!prep.rows[i].fit_acceptance) jobs.push_back({i, g});
          for (double a : exp::kAcceptGrid) {
            if (prep.rows[i].fit_acceptance) jobs.push_back({i, g, a});
          }
        }
      }
      sims.run(jobs, threads);
      // Row i's predictions over one parameter's grid with the other held at a value.
      const auto over_host_time = [&](std::size_t i, double tokens_per_step) {
        exp::GridPredictions g;
        for (double t : exp::kFitGrid) {
          if (!prep.rows[i].fit_acceptance) {
            g.at.push_back(sims.get(i, t));
            continue;
          }
          exp::GridPredictions along;
          for (double a : exp::kAcceptGrid) along.at.push_back(sims.get(i, t, a));
          g.at.push_back(exp::interpolate(along, tokens_per_step, exp::kAcceptGrid));
        }
        return g;
      };
      const auto over_acceptance = [&](std::size_t i, double theta) {
        exp::GridPredictions g;
        for (double a : exp::kAcceptGrid) {
          exp::GridPredictions along;
          for (double t : exp::kFitGrid) along.at.push_back(sims.get(i, t, a));
          g.at.push_back(exp::interpolate(along, theta));
        }
        return g;
      };
      // Alternating fit: each engine's host time at the current acceptance, then the
      // acceptance at those host times; a parameter with no row keeps the catalog's value.
      const auto fit = [&](const std::string& leave_out) {
        Fitted f;
        for (std::size_t e = 0; e < kEngines; ++e) f.graph_fixed_s[e] = catalog.engines[e].graph_fixed_s;
        std::vector<std::size_t> accept_idx;
        for (std::size_t i = 0; i < n; ++i) {
          if (prep.rows[i].fit_acceptance && groups[i] != leave_out && fit_row(i)) accept_idx.push_back(i);
        }
        double tokens = accept_idx.empty() ? nan : exp::kAcceptGrid[std::size(exp::kAcceptGrid) / 2];
        std::vector<exp::GridPredictions> grids(n);
        for (int round = 0; round < 4; ++round) {
          for (std::size_t i = 0; i < n; ++i) {
            if (fit_row(i)) grids[i] = over_host_time(i, tokens);
          }
          for (std::size_t e = 0; e < kEngines; ++e) {
            std::vector<std::size_t> rows;
            for (std::size_t i = 0; i < n; ++i) {
              if (eidx(i) == e && groups[i] != leave_out && fit_row(i)) rows.push_back(i);
            }
            const double t = rows.empty() ? nan : exp::fit_parameter(runs, grids, rows);
            if (!std::isnan(t)) f.graph_fixed_s[e] = t;
          }
          if (accept_idx.empty()) break;
          for (std::size_t i : accept_idx) grids[i] = over_acceptance(i, f.graph_fixed_s[eidx(i)]);
          const double a = exp::fit_parameter(runs, grids, accept_idx, exp::kAcceptGrid);
          if (!std::isnan(a)) tokens = a;
        }
        f.tokens_per_step = tokens;
        // Each engine's request latency on the TTFTs of unified rows (latency_fit_row), at the host
        // times and acceptance just fitted.
        for (std::size_t e = 0; e < kEngines; ++e) {
          f.request_latency_s[e] = catalog.engines[e].request_latency_s;
          std::vector<std::size_t> rows;
          Preds at(n);
          for (std::size_t i = 0; i < n; ++i) {
            if (eidx(i) != e || groups[i] == leave_out || !latency_fit_row(i) || !fit_row(i)) continue;
            rows.push_back(i);
            at[i] = exp::interpolate(over_host_time(i, tokens), f.graph_fixed_s[e]);
          }
          const double l = exp::fit_request_latency(runs, at, catalog.engines[e].request_latency_s, rows);
          if (!std::isnan(l)) f.request_latency_s[e] = l;
        }
        return f;
      };
      for (std::size_t i = 0; i < n; ++i) {
        if (!fit_row(i)) continue;
        ++engine_rows[eidx(i)], accept_rows += prep.rows[i].fit_acceptance;
        bool ttft = false;
        for (std::string_view m : exp::kLatencyFitMetrics) ttft |= !std::isnan(runs[i].metrics[calib::measured_metric_index(m)]);
        latency_rows[eidx(i)] += ttft && latency_fit_row(i);
      }
      fit_in = fit("");
      Fitted reported = fit_in;  // NaN where an engine has no row to fit
      for (std::size_t e = 0; e < kEngines; ++e) {
        if (engine_rows[e] == 0) reported.graph_fixed_s[e] = nan;
        if (latency_rows[e] == 0) reported.request_latency_s[e] = nan;
      }
      for (const auto& g : group_set) fit_fold[g] = fit(g);
      // Every reported prediction is simulated at its fitted values.
      jobs.clear();
      for (std::size_t i = 0; i < n; ++i) {
        const Fitted& fo = fit_fold[groups[i]];
        jobs.push_back({i, fit_in.graph_fixed_s[eidx(i)], fit_in.tokens_per_step, fit_in.request_latency_s[eidx(i)]});
        jobs.push_back({i, fo.graph_fixed_s[eidx(i)], fo.tokens_per_step, fo.request_latency_s[eidx(i)]});
      }
      sims.run(jobs, threads);
      cv.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        const Fitted& fo = fit_fold[groups[i]];
        in[i] = sims.get(i, fit_in.graph_fixed_s[eidx(i)], fit_in.tokens_per_step, fit_in.request_latency_s[eidx(i)]);
        cv[i] = sims.get(i, fo.graph_fixed_s[eidx(i)], fo.tokens_per_step, fo.request_latency_s[eidx(i)]);
      }
      fit_in = reported;
    }
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!args->bands.empty()) {
      std::vector<calib::Residual> residuals;
      for (std::size_t i = 0; i < n; ++i) {
        const exp::Experiment& ex = prep.rows[i].experiment;
        // Sequences a decoding replica holds (a disaggregated row's prefill replicas decode none).
        const int decoding = ex.plans[0].prefill_replicas > 0 ? ex.plans[0].decode_replicas : ex.serving.replicas;
        const double per_replica = runs[i].concurrency / std::max(1, decoding);
        for (const std::string& regime : exp::band_regimes(ex.model, ex.systems[0], per_replica)) {
          for (std::string_view metric : calib::kBandMetrics) {
            const std::size_t m = calib::measured_metric_index(metric);
            const double meas = runs[i].metrics[m];
            if (std::isnan(meas) || !std::isfinite(cv[i][m])) continue;
            residuals.push_back({regime, std::string(metric), (cv[i][m] - meas) / meas});
          }
        }
      }
      const calib::ErrorBands b = calib::fit_error_bands(
          residuals, 5,
          "agentsim validate " + args->experiment + " --measured " + args->measured + " --cv" +
              (args->since.empty() ? "" : " --since " + args->since) +
              " --bands: 10th/90th percentiles of the leave-one-(system, model)-group-out CV errors of " +
              std::to_string(n) + " mapped rows" +
              (args->since.empty() ? "" : " measured on or after " + args->since) +
              ", per regime with at least 5 rows");
      core::write_file_atomically(args->bands, calib::error_bands_yaml(b));
    }

    // Tables.
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    const Preds* cvp = args->cv ? &cv : nullptr;
    const std::vector<MetricRow> overall = metric_table(runs, all, in, cvp);
    // Rows whose throughput falls short of what their own latencies imply (a stall in the window):
    // flagged and kept; MAPE over the others is reported beside, never instead.
    std::vector<calib::ClosedLoopCheck> loop(n);
    std::vector<std::size_t> consistent;
    for (std::size_t i = 0; i < n; ++i) {
      loop[i] = calib::closed_loop_check(runs[i]);
      if (!loop[i].suspect) consistent.push_back(i);
    }
    const std::size_t suspect_rows = n - consistent.size();
    const std::vector<MetricRow> overall_consistent = metric_table(runs, consistent, in, cvp);
    // By when the rows were measured: the calendar quarter of each row's run date ("undated" last).
    std::map<std::string, std::vector<std::size_t>> period_idx;
    for (std::size_t i = 0; i < n; ++i) period_idx[calib::run_quarter(runs[i].run_date)].push_back(i);
    std::vector<std::pair<std::string, std::vector<MetricRow>>> periods;
    periods.reserve(period_idx.size());
    for (const auto& [p, idx] : period_idx) periods.emplace_back(p, metric_table(runs, idx, in, cvp));
    // By how the load was offered (docs/validation-sets.md): MLPerf's Offline and Server scenarios,
    // the closed-loop rows, and of those the prefill/decode-disaggregated ones.
    std::map<std::string, std::vector<std::size_t>> scenario_idx;
    for (std::size_t i = 0; i < n; ++i) {
      const std::string& sc = runs[i].scenario;
      scenario_idx[!sc.empty() ? sc : runs[i].prefill_replicas > 0 ? "closed-loop disaggregated" : "closed-loop"].push_back(i);
    }
    std::vector<std::pair<std::string, std::vector<MetricRow>>> scenarios;
    scenarios.reserve(scenario_idx.size());
    for (const auto& [sc, idx] : scenario_idx) scenarios.emplace_back(sc, metric_table(runs, idx, in, cvp));
    // Power per system: every row reporting a measured power (board power per GPU, wall power per GPU).
    struct PowerRow {
      std::string system;
      MetricRow metric;
    };
    std::vector<PowerRow> power_rows;
    {
      std::set<std::string> systems;
      for (const auto& r : runs) systems.insert(r.system);
      for (const auto& sys : systems) {
        std::vector<std::size_t> idx;
        for (std::size_t i = 0; i < n; ++i) {
          if (runs[i].system == sys) idx.push_back(i);
        }
        for (const auto& m : metric_table(runs, idx, in, cvp)) {
          if (m.metric == "power_w_per_gpu" || m.metric == "wall_power_w_per_gpu") power_rows.push_back({sys, m});
        }
      }
    }
    // What the predicted wall power holds (hwmodels/power_model.hpp, system_power).
    const std::string power_basis =
        "power_w_per_gpu: accelerator board power per serving GPU (the run's own GPUs; idle GPUs of its systems left out); "
        "wall_power_w_per_gpu: the occupied systems' wall power per GPU = accelerators + host CPUs + host memory + "
        "NICs + scale-up switches + fans and misc, divided by the PSU efficiency (PSU loss included), before PUE; "
        "no scale-out switches or facility cooling";
    struct GroupRow {
      std::string group;
      int rows = 0;
      std::vector<MetricRow> metrics;
      double key = 0;  // output tok/s per GPU MAPE (CV when run), for ranking
    };
    std::vector<GroupRow> group_rows;
    for (const auto& g : group_set) {
      std::vector<std::size_t> idx;
      for (std::size_t i = 0; i < n; ++i) {
        if (groups[i] == g) idx.push_back(i);
      }
      GroupRow gr{g, static_cast<int>(idx.size()), metric_table(runs, idx, in, cvp), -1};
      for (const auto& m : gr.metrics) {
        if (m.metric == "output_tok_s_per_gpu") gr.key = args->cv ? m.cv_pct : m.in_pct;
      }
      group_rows.push_back(std::move(gr));
    }
    // Two systems that ran the same work, measured and predicted (CV with --cv): output tok/s per
    // GPU of one over the other.
    std::vector<double> compared(n);
    for (std::size_t i = 0; i < n; ++i) {
      compared[i] = (args->cv ? cv : in)[i][calib::measured_metric_index("output_tok_s_per_gpu")];
    }
    calib::SystemComparisons versus = calib::compare_systems(runs, compared, "output_tok_s_per_gpu");
    if (!args->comparisons.empty()) {
      versus.provenance = "agentsim validate " + args->experiment + " --measured " + args->measured + " --cv" +
                          (args->since.empty() ? "" : " --since " + args->since) + " --comparisons: " +
                          std::to_string(versus.pairs) + " pairs of the " + std::to_string(n) +
                          " mapped rows that ran the same work on two systems within " +
                          std::to_string(calib::kPairedWithinDays) +
                          " days of each other, output tok/s per GPU of b over a, measured and predicted out of "
                          "sample (leave-one-(system, model)-group-out)";
      core::write_file_atomically(args->comparisons, calib::system_comparisons_yaml(versus));
    }
    std::vector<const GroupRow*> worst_groups;
    worst_groups.reserve(group_rows.size());
    for (const auto& g : group_rows) worst_groups.push_back(&g);
    std::stable_sort(worst_groups.begin(), worst_groups.end(),
                     [](const GroupRow* a, const GroupRow* b) { return a->key > b->key; });
    if (worst_groups.size() > static_cast<std::size_t>(std::max(0, args->worst))) {
      worst_groups.resize(static_cast<std::size_t>(std::max(0, args->worst)));
    }
    std::map<std::string, int> reasons;
    for (const auto& s : skipped) ++reasons[reason_kind(s.reason)];
    std::vector<std::pair<std::string, int>> reason_list(reasons.begin(), reasons.end());
    std::stable_sort(reason_list.begin(), reason_list.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
    std::map<std::string, int> mapped_per_file, skipped_per_file;
    for (const auto& r : runs) ++mapped_per_file[r.file];
    for (const auto& s : skipped) ++skipped_per_file[s.file];
    const calib::ValidationReport rep_in = calib::compare(runs, in);
    const auto worst = rep_in.worst(static_cast<std::size_t>(std::max(0, args->worst)));

    if (args->json) {
      nlohmann::ordered_json j;
      j["measured"] = args->measured;
      j["cross_validated"] = args->cv;
      j["wall_s"] = wall_s;
      j["simulations"] = sims.simulations();
      j["rows_read"] = set.rows();
      j["rows_mapped"] = n;
      j["rows_skipped"] = skipped.size();
      for (const auto& f : set.files) {
        j["files"].push_back({{"file", f.file}, {"schema", f.schema}, {"rows", f.rows},
                              {"mapped", mapped_per_file[f.file]}, {"skipped", skipped_per_file[f.file]}});
      }
      j["skipped_by_reason"] = nlohmann::ordered_json::array();
      for (const auto& [r, c] : reason_list) j["skipped_by_reason"].push_back({{"reason", r}, {"rows", c}});
      j["unmapped"] = nlohmann::ordered_json::array();  // every row not predicted, with its reason
      for (const auto& s : skipped) {
        j["unmapped"].push_back({{"file", s.file}, {"line", s.line}, {"id", s.id}, {"reason", s.reason}});
      }
      if (args->cv) {
        // Per engine: the host time of a graph-replayed decode step, then the request latency.
        const auto engine_parameters = [&](const std::string& key, const int* rows, const auto& catalog_s,
                                           const auto& fitted_s) {
          for (std::size_t e = 0; e < kEngines; ++e) {
            const std::string name(serving::kEngineNames[e].first);
            j["parameters"].push_back({{"name", "engines." + name + "." + key}, {"engine", name}, {"unit", "s"},
                                       {"rows", rows[e]}, {"catalog_s", catalog_s(catalog.engines[e])},
                                       {"fitted_s", num(fitted_s[e])}});
          }
        };
        engine_parameters("graph_fixed", engine_rows, [](const serving::EngineOverhead& o) { return o.graph_fixed_s; },
                          fit_in.graph_fixed_s);
        engine_parameters("request_latency", latency_rows,
                          [](const serving::EngineOverhead& o) { return o.request_latency_s; }, fit_in.request_latency_s);
        j["parameters"].push_back({{"name", "random_prompts.tokens_per_step"},
                                   {"unit", "tokens per verify step"},
                                   {"rows", accept_rows},
                                   {"fitted", num(fit_in.tokens_per_step)}});
        for (const auto& [g, f] : fit_fold) {
          nlohmann::ordered_json o{{"left_out", g}};
          for (std::size_t e = 0; e < kEngines; ++e) o[std::string(serving::kEngineNames[e].first)] = num(f.graph_fixed_s[e]);
          for (std::size_t e = 0; e < kEngines; ++e) {
            o[std::string(serving::kEngineNames[e].first) + ".request_latency"] = num(f.request_latency_s[e]);
          }
          o["random_prompts.tokens_per_step"] = num(f.tokens_per_step);
          j["folds"].push_back(o);
        }
        j["fit_metrics"] = std::vector<std::string>(std::begin(exp::kFitMetrics), std::end(exp::kFitMetrics));
        j["latency_fit_metrics"] =
            std::vector<std::string>(std::begin(exp::kLatencyFitMetrics), std::end(exp::kLatencyFitMetrics));
        j["fit_grid_s"] = std::vector<double>(std::begin(exp::kFitGrid), std::end(exp::kFitGrid));
        j["fit_grid_tokens_per_step"] = std::vector<double>(std::begin(exp::kAcceptGrid), std::end(exp::kAcceptGrid));
      }
      const auto metrics_json = [&](const std::vector<MetricRow>& ms) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (const auto& m : ms) {
          a.push_back({{"metric", m.metric}, {"rows", m.rows}, {"mape_in_sample_pct", num(m.in_pct)},
                       {"mape_cv_pct", num(m.cv_pct)}, {"max_abs_in_sample_pct", num(m.in_max)},
                       {"max_abs_cv_pct", num(m.cv_max)}, {"mean_error_in_sample_pct", num(m.in_bias)},
                       {"mean_error_cv_pct", num(m.cv_bias)}});
        }
        return a;
      };
      // MAPE per metric as fractions (cv_mape null without --cv), then the same in percent with maxima.
      j["metrics"] = nlohmann::ordered_json::object();
      for (const auto& m : overall) {
        j["metrics"][m.metric] = {{"rows", m.rows}, {"mape", num(m.in_pct / 100)}, {"cv_mape", num(m.cv_pct / 100)}};
      }
      j["mape"] = metrics_json(overall);
      // The same over the rows whose throughput agrees with their latencies (closed_loop_suspect lists the others).
      j["metrics_closed_loop_consistent"] = nlohmann::ordered_json::object();
      for (const auto& m : overall_consistent) {
        j["metrics_closed_loop_consistent"][m.metric] = {
            {"rows", m.rows}, {"mape", num(m.in_pct / 100)}, {"cv_mape", num(m.cv_pct / 100)}};
      }
      j["closed_loop_suspect"] = nlohmann::ordered_json::array();
      for (std::size_t i = 0; i < n; ++i) {
        if (!loop[i].suspect) continue;
        j["closed_loop_suspect"].push_back(
            {{"id", runs[i].id}, {"file", runs[i].file}, {"line", runs[i].line}, {"ratio", loop[i].ratio}});
      }
      for (const auto& g : group_rows) j["groups"].push_back({{"group", g.group}, {"rows", g.rows}, {"mape", metrics_json(g.metrics)}});
      // Per calendar quarter of the rows' run dates (the software the runs had changes between quarters).
      j["periods"] = nlohmann::ordered_json::array();
      for (const auto& [p, ms] : periods) {
        j["periods"].push_back({{"period", p}, {"rows", period_idx[p].size()}, {"mape", metrics_json(ms)}});
      }
      j["scenarios"] = nlohmann::ordered_json::array();
      for (const auto& [sc, ms] : scenarios) {
        j["scenarios"].push_back({{"scenario", sc}, {"rows", scenario_idx[sc].size()}, {"mape", metrics_json(ms)}});
      }
      j["power_basis"] = power_basis;
      j["power"] = nlohmann::ordered_json::array();
      for (const auto& p : power_rows) {
        j["power"].push_back({{"system", p.system}, {"metric", p.metric.metric}, {"rows", p.metric.rows},
                              {"mape_in_sample_pct", num(p.metric.in_pct)}, {"mape_cv_pct", num(p.metric.cv_pct)},
                              {"mean_error_in_sample_pct", num(p.metric.in_bias)},
                              {"mean_error_cv_pct", num(p.metric.cv_bias)}});
      }
      j["system_comparisons"] = {{"metric", versus.metric},
                                 {"predictions", args->cv ? "cv" : "in_sample"},
                                 {"pairs", versus.pairs},
                                 {"same_winner", versus.same_winner},
                                 {"decided_ratio", calib::kDecidedRatio},
                                 {"decided", versus.decided},
                                 {"decided_same_winner", versus.decided_same_winner},
                                 {"abs_ratio_error_median_pct", num(versus.abs_ratio_error_median_pct)},
                                 {"systems", nlohmann::ordered_json::array()}};
      for (const auto& p : versus.systems) {
        j["system_comparisons"]["systems"].push_back(
            {{"a", p.a}, {"b", p.b}, {"pairs", p.pairs}, {"same_winner", p.same_winner}, {"decided", p.decided},
             {"decided_same_winner", p.decided_same_winner},
             {"measured_ratio_median", p.measured_ratio_median}, {"predicted_ratio_median", p.predicted_ratio_median},
             {"ratio_error_median_pct", p.ratio_error_median_pct},
             {"abs_ratio_error_median_pct", p.abs_ratio_error_median_pct},
             {"abs_ratio_error_max_pct", p.abs_ratio_error_max_pct}});
      }
      if (!args->since.empty()) j["since"] = args->since;
      j["worst"] = nlohmann::ordered_json::array();
      for (const auto& e : worst) j["worst"].push_back({{"id", e.id}, {"metric", e.metric}, {"error_pct", e.error_pct}});
      for (const auto* g : worst_groups) {
        j["worst_groups"].push_back({{"group", g->group}, {"output_tok_s_per_gpu_mape_pct", num(g->key)}});
      }
      for (std::size_t i = 0; i < n; ++i) {
        const auto& r = runs[i];
        nlohmann::ordered_json row{{"id", r.id}, {"file", r.file}, {"line", r.line}, {"group", groups[i]},
                                   {"plan", r.plan}, {"gpus", r.gpus}, {"isl", r.isl}, {"osl", r.osl},
                                   {"concurrency", r.concurrency}, {"prefill_replicas", r.prefill_replicas},
                                   {"decode_replicas", r.decode_replicas},
                                   {"scenario", r.scenario.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.scenario)},
                                   {"engine", std::string(serving::to_string(prep.rows[i].engine))},
                                   {"speculative", r.speculative}, {"experts", r.experts_dtype},
                                   {"mapping", r.mapping},
                                   {"run_date", r.run_date.empty() ? nlohmann::ordered_json() : nlohmann::ordered_json(r.run_date)},
                                   {"closed_loop_ratio", num(loop[i].ratio)}};
        for (std::size_t m = 0; m < calib::kMeasuredMetricCount; ++m) {
          if (std::isnan(r.metrics[m])) continue;
          nlohmann::ordered_json x{{"metric", std::string(calib::kMeasuredMetrics[m])}, {"measured", r.metrics[m]},
                                   {"predicted_in_sample", num(in[i][m])},
                                   {"error_in_sample_pct", num((in[i][m] - r.metrics[m]) / r.metrics[m] * 100)}};
          if (args->cv) {
            x["predicted_cv"] = num(cv[i][m]);
            x["error_cv_pct"] = num((cv[i][m] - r.metrics[m]) / r.metrics[m] * 100);
          }
          row["metrics"].push_back(x);
        }
        j["rows"].push_back(row);
      }
      std::fputs((j.dump(2) + "\n").c_str(), stdout);
      return 0;
    }
    std::printf("rows: %d read, %zu mapped, %zu skipped (%d simulations, %.1f s)\n", set.rows(), n, skipped.size(),
                sims.simulations(), wall_s);
    for (const auto& f : set.files) {
      std::printf("  %-72s %-22s %4d read %4d mapped %4d skipped\n", f.file.c_str(), f.schema.c_str(), f.rows,
                  mapped_per_file[f.file], skipped_per_file[f.file]);
    }
    if (!reason_list.empty()) std::printf("skipped, by reason:\n");
    for (const auto& [r, c] : reason_list) std::printf("  %4d  %s\n", c, r.c_str());
    if (args->cv) {
      std::printf("\nfitted (per engine, host time of a graph-replayed decode step and request latency; catalog value in brackets):\n");
      for (std::size_t e = 0; e < kEngines; ++e) {
        if (engine_rows[e] == 0) continue;
        std::printf("  engines.%s.graph_fixed = %.3f ms  [%.3f ms]  over %d rows\n",
                    std::string(serving::kEngineNames[e].first).c_str(), fit_in.graph_fixed_s[e] * 1e3,
                    catalog.engines[e].graph_fixed_s * 1e3, engine_rows[e]);
      }
      for (std::size_t e = 0; e < kEngines; ++e) {
        if (latency_rows[e] == 0) continue;
        std::printf("  engines.%s.request_latency = %.1f ms  [%.1f ms]  over %d rows with a TTFT\n",
                    std::string(serving::kEngineNames[e].first).c_str(), fit_in.request_latency_s[e] * 1e3,
                    catalog.engines[e].request_latency_s * 1e3, latency_rows[e]);
      }
      if (accept_rows > 0) {
        std::printf("  random_prompts.tokens_per_step = %.3f  (speculative rows on random-token prompts)  over %d rows\n",
                    fit_in.tokens_per_step, accept_rows);
      }
    }
    // MAPE and largest error per metric; without --cv nothing is fitted (the catalog's values) and
    // there is no cross-validated column to show.
    const auto print_metrics = [&](const std::vector<MetricRow>& ms) {
      if (args->cv) {
        std::printf("%-22s %5s %10s %10s %10s %10s\n", "metric", "rows", "MAPE in", "MAPE CV", "max|e| in", "max|e| CV");
      } else {
        std::printf("%-22s %5s %10s %10s   (catalog defaults; --cv fits and cross-validates)\n", "metric", "rows",
                    "MAPE", "max|e|");
      }
      for (const auto& m : ms) {
        std::printf("%-22s %5d %9.1f%%", m.metric.c_str(), m.rows, m.in_pct);
        if (args->cv) std::printf(" %9.1f%%", m.cv_pct);
        std::printf(" %9.1f%%", m.in_max);
        if (args->cv) std::printf(" %9.1f%%", m.cv_max);
        std::printf("\n");
      }
    };
    std::printf("\n");
    print_metrics(overall);
    if (suspect_rows > 0) {
      std::printf("\n%zu rows' throughput is below %.2f of what their own median TTFT and TPOT imply for their "
                  "closed loop (a stall in the window); kept above, and without them:\n",
                  suspect_rows, calib::kClosedLoopSuspectRatio);
      for (std::size_t i = 0; i < n; ++i) {
        if (loop[i].suspect) std::printf("  %-44s ratio %.2f\n", runs[i].id.c_str(), loop[i].ratio);
      }
      print_metrics(overall_consistent);
    }
    // The two headline metrics per quarter the rows were measured in: MAPE and mean signed error.
    std::printf("\nby when the rows were measured (quarter of the run date; rows, MAPE%s, mean signed error%s):\n",
                args->cv ? " in-sample / CV" : "", args->cv ? " CV" : "");
    std::printf("  %-8s %5s   %-34s %-34s\n", "period", "rows", "output_tok_s_per_gpu", "tpot_s_median");
    for (const auto& [p, ms] : periods) {
      std::printf("  %-8s %5zu", p.c_str(), period_idx[p].size());
      for (const char* metric : {"output_tok_s_per_gpu", "tpot_s_median"}) {
        const MetricRow* m = nullptr;
        for (const auto& x : ms) {
          if (x.metric == metric) m = &x;
        }
        char cell[64] = "-";
        if (m != nullptr && args->cv) {
          std::snprintf(cell, sizeof cell, "%3d rows %5.1f%% / %5.1f%% %+6.1f%%", m->rows, m->in_pct, m->cv_pct, m->cv_bias);
        } else if (m != nullptr) {
          std::snprintf(cell, sizeof cell, "%3d rows %5.1f%% %+6.1f%%", m->rows, m->in_pct, m->in_bias);
        }
        std::printf("   %-34s", cell);
      }
      std::printf("\n");
    }
    std::printf("\nby scenario:\n");
    for (const auto& [sc, ms] : scenarios) {
      std::printf("  %s (%zu rows)\n", sc.c_str(), scenario_idx[sc].size());
      print_metrics(ms);
    }
    if (!power_rows.empty()) {
      std::printf("\npower per system (%s):\n", power_basis.c_str());
      if (args->cv) {
        std::printf("  %-14s %-22s %5s %10s %10s %12s\n", "system", "metric", "rows", "MAPE in", "MAPE CV", "mean err CV");
      } else {
        std::printf("  %-14s %-22s %5s %10s   (catalog defaults)\n", "system", "metric", "rows", "MAPE");
      }
      for (const auto& p : power_rows) {
        if (args->cv) {
          std::printf("  %-14s %-22s %5d %9.1f%% %9.1f%% %+11.1f%%\n", p.system.c_str(), p.metric.metric.c_str(),
                      p.metric.rows, p.metric.in_pct, p.metric.cv_pct, p.metric.cv_bias);
        } else {
          std::printf("  %-14s %-22s %5d %9.1f%%\n", p.system.c_str(), p.metric.metric.c_str(), p.metric.rows,
                      p.metric.in_pct);
        }
      }
    }
    if (versus.pairs > 0) {
      std::printf("\nsystems compared on the same work (output tok/s per GPU, b over a%s): %d pairs, the measured "
                  "faster system predicted faster in %d (%d of the %d that differ by %.0f%% or more), median "
                  "|ratio error| %.1f%%\n",
                  args->cv ? ", CV" : "", versus.pairs, versus.same_winner, versus.decided_same_winner, versus.decided,
                  (calib::kDecidedRatio - 1) * 100, versus.abs_ratio_error_median_pct);
      std::printf("  %-14s %-14s %5s %8s %8s %9s %9s %13s %13s\n", "a", "b", "pairs", "ranked", "decided", "measured",
                  "predicted", "median error", "median |err|");
      for (const auto& p : versus.systems) {
        std::printf("  %-14s %-14s %5d %4d/%-3d %4d/%-3d %9.2f %9.2f %+12.1f%% %12.1f%%\n", p.a.c_str(), p.b.c_str(),
                    p.pairs, p.same_winner, p.pairs, p.decided_same_winner, p.decided, p.measured_ratio_median,
                    p.predicted_ratio_median, p.ratio_error_median_pct, p.abs_ratio_error_median_pct);
      }
    }
    std::printf("\nworst groups (output tok/s per GPU MAPE%s):\n", args->cv ? ", CV" : "");
    for (const auto* g : worst_groups) std::printf("  %-34s %5d rows %8.1f%%\n", g->group.c_str(), g->rows, g->key);
    std::printf("\n%-28s %-22s %12s %12s %9s%s\n", "row", "metric", "measured", "predicted", "error",
                args->cv ? "   CV pred   CV error" : "");
    for (std::size_t i = 0; i < n; ++i) {
      for (std::size_t m = 0; m < calib::kMeasuredMetricCount; ++m) {
        const double meas = runs[i].metrics[m];
        if (std::isnan(meas)) continue;
        std::printf("%-28s %-22s %12.5g %12.5g %+8.1f%%", runs[i].id.c_str(), std::string(calib::kMeasuredMetrics[m]).c_str(),
                    meas, in[i][m], (in[i][m] - meas) / meas * 100);
        if (args->cv) std::printf(" %11.5g %+9.1f%%", cv[i][m], (cv[i][m] - meas) / meas * 100);
        std::printf("\n");
      }
    }
    std::printf("\nworst:\n");
    for (const auto& e : worst) std::printf("  %-28s %-22s %+8.1f%%\n", e.id.c_str(), e.metric.c_str(), e.error_pct);
    return 0;
  }};
}

}  // namespace agentsim::cli
