// agentsim validate EXP.yaml --measured FILE.csv|DIR [--cv] [--json] [-j N]
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <regex>
#include <set>
#include <thread>

#include <nlohmann/json.hpp>

#include "calibration/measured_sources.hpp"
#include "calibration/validation_report.hpp"
#include "experiments/config/catalog.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/validation_fit.hpp"
#include "experiments/run/validation_runner.hpp"
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

// The engine model with the fitted parameter (graph-replayed decode host time) set to `theta`;
// the eager step keeps its catalog margin above it.
serving::EngineOverhead with_parameter(const serving::EngineOverhead& catalog, double theta) {
  serving::EngineOverhead o = catalog;
  o.fixed_s = theta + std::max(0.0, catalog.fixed_s - catalog.graph_fixed_s);
  o.graph_fixed_s = theta;
  return o;
}

// Simulations keyed by (row, parameter), each run once.
class Simulations {
 public:
  explicit Simulations(const std::vector<exp::ValidationRow>& rows) : rows_(rows) {}
  struct Job {
    std::size_t row;
    double theta;  // NaN: the catalog's engine model
  };
  void run(const std::vector<Job>& jobs, int threads) {
    std::vector<Job> todo;
    for (const Job& j : jobs) {
      if (!done_.count(key(j))) todo.push_back(j), done_[key(j)] = {};
    }
    std::vector<std::vector<double>> out(todo.size());
    core::parallel_for(todo.size(), threads, [&](std::size_t i) {
      const exp::ValidationRow& r = rows_[todo[i].row];
      const serving::EngineOverhead& cat = r.experiment.serving.engine_overhead;
      out[i] = exp::predict_row(r, std::isnan(todo[i].theta) ? cat : with_parameter(cat, todo[i].theta));
    });
    for (std::size_t i = 0; i < todo.size(); ++i) done_[key(todo[i])] = std::move(out[i]);
    simulations_ += static_cast<int>(todo.size());
  }
  const std::vector<double>& get(std::size_t row, double theta) const { return done_.at(key({row, theta})); }
  int simulations() const { return simulations_; }

 private:
  static std::pair<std::size_t, long long> key(const Job& j) {
    return {j.row, std::isnan(j.theta) ? -1 : std::llround(j.theta * 1e9)};
  }
  const std::vector<exp::ValidationRow>& rows_;
  std::map<std::pair<std::size_t, long long>, std::vector<double>> done_;
  int simulations_ = 0;
};

struct MetricRow {
  std::string metric;
  int rows = 0;
  double in_pct = NAN, cv_pct = NAN, in_max = NAN, cv_max = NAN;
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
  for (const auto& s : a.summaries) out.push_back({s.metric, s.rows, s.mape_pct, NAN, s.max_abs_pct, NAN});
  if (cv) {
    const calib::ValidationReport b = calib::compare(sub, pcv);
    for (const auto& s : b.summaries) {
      for (auto& o : out) {
        if (o.metric == s.metric) o.cv_pct = s.mape_pct, o.cv_max = s.max_abs_pct;
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
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("validate", "predict measured serving runs and report the errors");
  sub->add_option("experiment", args->experiment, "base experiment YAML (serving options, window, seed)")->required();
  sub->add_option("--measured", args->measured,
                  "measured-runs CSV, or a directory: every *.csv below it (schemas: docs/calibration.md)")
      ->required();
  sub->add_flag("--cv", args->cv,
                "fit the per-engine host time of a graph-replayed decode step to the rows and report in-sample and "
                "leave-one-(system, model)-group-out cross-validated errors");
  sub->add_flag("--json", args->json, "print JSON");
  sub->add_option("-j,--jobs", args->jobs, "worker threads (0 = one per core)")->capture_default_str();
  sub->add_option("--worst", args->worst, "how many worst errors and groups to list")->capture_default_str();

  return Command{sub, [args, &ctx]() {
    const auto t0 = std::chrono::steady_clock::now();
    const exp::Experiment base = exp::load_experiment(args->experiment, ctx.root);
    const exp::Catalog catalog = exp::load_catalog(ctx.root);
    const calib::MeasuredSet set = calib::load_measured(args->measured);
    std::vector<std::string> strict;
    for (const auto& f : set.files) {
      if (f.schema == "measured-runs") strict.push_back(f.file);
    }
    const exp::PreparedRows prep = exp::prepare_rows(base, catalog, set.runs, strict);
    std::vector<calib::SkippedRow> skipped = set.skipped;
    skipped.insert(skipped.end(), prep.skipped.begin(), prep.skipped.end());
    if (prep.rows.empty()) throw core::Error(core::SourceLocation{args->measured, 0, ""}, "no row could be mapped");
    if (args->cv && base.serving.step_overhead_set) {
      throw core::Error(core::SourceLocation{args->experiment, 0, "serving.step_overhead"},
                        "--cv fits the engines' host-time model, which serving.step_overhead replaces; remove it");
    }
    const int threads = args->jobs > 0 ? args->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const std::size_t n = prep.rows.size();
    std::vector<calib::MeasuredRun> runs;
    std::vector<std::string> groups;
    for (const auto& r : prep.rows) runs.push_back(r.run), groups.push_back(r.run.group());
    const std::set<std::string> group_set(groups.begin(), groups.end());

    Simulations sims(prep.rows);
    Preds in(n), cv;
    const double nan = std::numeric_limits<double>::quiet_NaN();
    // Fitted parameters: per engine, in-sample and per fold.
    double theta_in[kEngines];
    std::fill(std::begin(theta_in), std::end(theta_in), nan);
    int engine_rows[kEngines] = {};
    std::map<std::string, std::array<double, kEngines>> theta_fold;
    const auto eidx = [&](std::size_t i) { return static_cast<std::size_t>(prep.rows[i].engine); };
    if (!args->cv) {
      std::vector<Simulations::Job> jobs;
      for (std::size_t i = 0; i < n; ++i) jobs.push_back({i, nan});
      sims.run(jobs, threads);
      for (std::size_t i = 0; i < n; ++i) in[i] = sims.get(i, nan);
    } else {
      std::vector<Simulations::Job> jobs;
      for (std::size_t i = 0; i < n; ++i) {
        for (double g : exp::kFitGrid) jobs.push_back({i, g});
      }
      sims.run(jobs, threads);
      std::vector<exp::GridPredictions> grids(n);
      for (std::size_t i = 0; i < n; ++i) {
        for (double g : exp::kFitGrid) grids[i].at.push_back(sims.get(i, g));
      }
      const auto fit = [&](std::size_t engine, const std::string& leave_out) {
        std::vector<std::size_t> rows;
        for (std::size_t i = 0; i < n; ++i) {
          if (eidx(i) == engine && groups[i] != leave_out) rows.push_back(i);
        }
        // No row of this engine outside the group: the catalog's value.
        if (rows.empty()) return catalog.engines[engine].graph_fixed_s;
        const double t = exp::fit_parameter(runs, grids, rows);
        return std::isnan(t) ? catalog.engines[engine].graph_fixed_s : t;
      };
      for (std::size_t e = 0; e < kEngines; ++e) {
        for (std::size_t i = 0; i < n; ++i) engine_rows[e] += eidx(i) == e;
        if (engine_rows[e] > 0) theta_in[e] = fit(e, "");
      }
      for (const auto& g : group_set) {
        auto& t = theta_fold[g];
        for (std::size_t e = 0; e < kEngines; ++e) t[e] = engine_rows[e] > 0 ? fit(e, g) : nan;
      }
      // Every reported prediction is simulated at its fitted value.
      jobs.clear();
      for (std::size_t i = 0; i < n; ++i) {
        jobs.push_back({i, theta_in[eidx(i)]});
        jobs.push_back({i, theta_fold[groups[i]][eidx(i)]});
      }
      sims.run(jobs, threads);
      cv.resize(n);
      for (std::size_t i = 0; i < n; ++i) {
        in[i] = sims.get(i, theta_in[eidx(i)]);
        cv[i] = sims.get(i, theta_fold[groups[i]][eidx(i)]);
      }
    }
    const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    // Tables.
    std::vector<std::size_t> all(n);
    for (std::size_t i = 0; i < n; ++i) all[i] = i;
    const Preds* cvp = args->cv ? &cv : nullptr;
    const std::vector<MetricRow> overall = metric_table(runs, all, in, cvp);
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
      j["skipped"] = nlohmann::ordered_json::array();
      for (const auto& s : skipped) {
        j["skipped"].push_back({{"file", s.file}, {"line", s.line}, {"id", s.id}, {"reason", s.reason}});
      }
      if (args->cv) {
        for (std::size_t e = 0; e < kEngines; ++e) {
          const std::string name(serving::kEngineNames[e].first);
          j["parameters"].push_back({{"name", "engines." + name + ".graph_fixed"},
                                     {"engine", name},
                                     {"rows", engine_rows[e]},
                                     {"catalog_s", catalog.engines[e].graph_fixed_s},
                                     {"fitted_s", num(theta_in[e])}});
        }
        for (const auto& [g, t] : theta_fold) {
          nlohmann::ordered_json f{{"left_out", g}};
          for (std::size_t e = 0; e < kEngines; ++e) f[std::string(serving::kEngineNames[e].first)] = num(t[e]);
          j["folds"].push_back(f);
        }
        j["fit_metrics"] = std::vector<std::string>(std::begin(exp::kFitMetrics), std::end(exp::kFitMetrics));
        j["fit_grid_s"] = std::vector<double>(std::begin(exp::kFitGrid), std::end(exp::kFitGrid));
      }
      const auto metrics_json = [&](const std::vector<MetricRow>& ms) {
        nlohmann::ordered_json a = nlohmann::ordered_json::array();
        for (const auto& m : ms) {
          a.push_back({{"metric", m.metric}, {"rows", m.rows}, {"mape_in_sample_pct", num(m.in_pct)},
                       {"mape_cv_pct", num(m.cv_pct)}, {"max_abs_in_sample_pct", num(m.in_max)},
                       {"max_abs_cv_pct", num(m.cv_max)}});
        }
        return a;
      };
      j["mape"] = metrics_json(overall);
      for (const auto& g : group_rows) j["groups"].push_back({{"group", g.group}, {"rows", g.rows}, {"mape", metrics_json(g.metrics)}});
      j["worst"] = nlohmann::ordered_json::array();
      for (const auto& e : worst) j["worst"].push_back({{"id", e.id}, {"metric", e.metric}, {"error_pct", e.error_pct}});
      for (const auto* g : worst_groups) {
        j["worst_groups"].push_back({{"group", g->group}, {"output_tok_s_per_gpu_mape_pct", num(g->key)}});
      }
      for (std::size_t i = 0; i < n; ++i) {
        const auto& r = runs[i];
        nlohmann::ordered_json row{{"id", r.id}, {"file", r.file}, {"line", r.line}, {"group", groups[i]},
                                   {"plan", r.plan}, {"gpus", r.gpus}, {"isl", r.isl}, {"osl", r.osl},
                                   {"concurrency", r.concurrency},
                                   {"engine", std::string(serving::to_string(prep.rows[i].engine))},
                                   {"speculative", r.speculative}, {"mapping", r.mapping}};
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
      std::printf("\nfitted (per engine, host time of a graph-replayed decode step; catalog value in brackets):\n");
      for (std::size_t e = 0; e < kEngines; ++e) {
        if (engine_rows[e] == 0) continue;
        std::printf("  engines.%s.graph_fixed = %.3f ms  [%.3f ms]  over %d rows\n",
                    std::string(serving::kEngineNames[e].first).c_str(), theta_in[e] * 1e3,
                    catalog.engines[e].graph_fixed_s * 1e3, engine_rows[e]);
      }
    }
    std::printf("\n%-22s %5s %10s %10s %10s %10s\n", "metric", "rows", "MAPE in", "MAPE CV", "max|e| in", "max|e| CV");
    for (const auto& m : overall) {
      std::printf("%-22s %5d %9.1f%% %9.1f%% %9.1f%% %9.1f%%\n", m.metric.c_str(), m.rows, m.in_pct, m.cv_pct,
                  m.in_max, m.cv_max);
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
