// agentsim run EXPERIMENT --out DIR [-j N] [--set PATH=VALUE]... [--resume] [--max-memory SIZE] [--baseline DIR]
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <thread>

#include "sim/core/atomic_write.hpp"
#include "experiments/config/deployment_name.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/cli/option_values.hpp"
#include "experiments/run/sweep_ranks.hpp"
#include "sim/core/units.hpp"
#include "experiments/config/experiment.hpp"
#include "experiments/run/memory_estimate.hpp"
#include "experiments/output/readoff_sinks.hpp"
#include "experiments/output/report_html.hpp"
#include "experiments/output/results_h5.hpp"
#include "experiments/output/run_comparison.hpp"
#include "experiments/run/runner.hpp"
#include "experiments/run/plan_ranking.hpp"
#include "experiments/output/summary_csv.hpp"
#include "experiments/run/sweep_outcome.hpp"
#include "experiments/output/terminal_table.hpp"

namespace agentsim::cli {
namespace fs = std::filesystem;

Command add_run_command(CLI::App& app, const Context& ctx) {
  struct Args {
    std::string experiment;
    std::string out = "out";
    int jobs = 0;
    std::vector<std::string> sets;
    bool resume = false;
    long long stop_after = -1;
    bool quiet_runs = false;
    std::string max_memory;
    std::string baseline;
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand(
      "run", "run an experiment's sweep; write DIR/summary.csv, readoffs.csv, results.h5 and report.html");
  sub->add_option("experiment", args->experiment, "experiment YAML")->required();
  sub->add_option("--out", args->out, "output folder")->capture_default_str();
  sub->add_option("-j,--jobs", args->jobs, "worker threads per process (0 = one per core)")
      ->capture_default_str()->check(non_negative_number());
  sub->add_option("--set", args->sets, "override an experiment key, e.g. --set workload.window=300s (repeatable)");
  sub->add_flag("--resume", args->resume, "reuse the runs an interrupted invocation finished (kept in DIR/.partial)");
  sub->add_option("--stop-after", args->stop_after,
                  "stop after N new runs, keeping them for --resume (staged runs, tests)");
  sub->add_flag("--no-run-table", args->quiet_runs, "print only the read-off table");
  sub->add_option("--max-memory", args->max_memory,
                  "fail before simulating if the estimated peak memory exceeds SIZE, e.g. 16GB (see limits.memory)");

  sub->add_option("--baseline", args->baseline,
                  "a finished run folder to compare against: also write DIR/compare.html (as `agentsim report`)");

  return Command{sub, [args, &ctx]() {
    const auto t0 = std::chrono::steady_clock::now();
    exp::SweepRanks ranks;
    const bool lead = ranks.rank() == 0;
    exp::Experiment e = exp::load_experiment(args->experiment, ctx.root, args->sets);
    require_output_folder("--out", args->out);
    // The baseline is read before simulating, so a bad folder fails fast and nothing is written.
    if (!args->baseline.empty()) exp::read_run_table(args->baseline);
    exp::ExecOptions opt;
    opt.threads = args->jobs > 0 ? args->jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    opt.progress = ::isatty(2) != 0;
    opt.cache_dir = (fs::path(args->out) / ".partial").string();
    opt.stop_after = args->stop_after;
    // Fail before simulating, not by the OS's hand, when the sweep cannot fit in memory.
    double limit_bytes = e.memory_limit_bytes;
    std::string limit_name = "limits.memory";
    if (!args->max_memory.empty()) {
      limit_bytes = option_quantity("--max-memory", args->max_memory, core::Dimension::kBytes);
      limit_name = "--max-memory";
    }
    std::string limit_source;
    const double available = exp::available_memory_bytes(limit_bytes, limit_name, limit_source);
    // A trace file too big to load is refused from its size on disk, before reading it.
    const exp::MemoryComponent trace_load = exp::trace_load_bytes(e);
    if (trace_load.bytes > 0) {
      const exp::MemoryComponent base{"process baseline", exp::memory_constants::kBaseBytes,
                                      "binary, libraries (MPI, HDF5), catalogs"};
      exp::MemoryEstimate before{base.bytes + trace_load.bytes, {}};
      before.components = trace_load.bytes > base.bytes ? std::vector{trace_load, base} : std::vector{base, trace_load};
      exp::check_memory(e, before, available, limit_source);
    }
    const auto sessions = exp::load_sessions(e);
    exp::rank_plans(e, sessions);  // search: auto simulates only the most promising plans
    const exp::MemoryEstimate mem = exp::estimate_memory(e, sessions, opt.threads, ranks.size());
    exp::check_memory(e, mem, available, limit_source);
    if (lead) {
      std::size_t valid = 0;
      for (const auto& p : e.plans) valid += p.pruned.empty() ? 1 : 0;
      std::printf("experiment %s: %s on %zu system(s), %zu plan(s) (%zu pruned), %zu levels, %zu sessions from %s; "
                  "%d thread(s) x %d process(es)\n",
                  e.name.c_str(), e.model.name.c_str(), e.systems.size(), valid, e.plans.size() - valid,
                  e.workload.levels.size(), sessions.sessions.size(),
                  e.workload.use_generator ? "the generator" : e.workload.trace_path.c_str(), opt.threads,
                  ranks.size());
      std::printf("memory: estimated peak %s of %s available (%s)\n",
                  core::format_quantity(mem.total_bytes, core::Dimension::kBytes).c_str(),
                  core::format_quantity(available, core::Dimension::kBytes).c_str(), limit_source.c_str());
      for (const auto& p : e.plans) {
        if (!p.pruned.empty()) {
          std::printf("  pruned %s %s: %s\n", e.systems[static_cast<std::size_t>(p.system)].name.c_str(),
                      exp::deployment_name(e, p).c_str(), p.pruned.c_str());
        }
      }
      std::fflush(stdout);
      if (!args->resume) fs::remove_all(opt.cache_dir);
      // Temp files of a killed invocation are never read; clear them so the folder holds only whole files.
      exp::remove_temp_files(args->out);
      exp::remove_temp_files(opt.cache_dir);
    }
    ranks.all_gather("");  // no rank touches the cache before the lead has cleared it
    exp::SweepOutcome outcome;
    try {
      outcome = exp::run_experiment(e, sessions, opt, ranks);
    } catch (const exp::SweepInterrupted& stop) {
      if (lead) {
        std::printf("%s; %lld run(s) kept in %s; rerun with --resume\n", stop.what(), args->stop_after,
                    opt.cache_dir.c_str());
      }
      return 3;
    }
    if (!lead) return 0;
    if (!args->quiet_runs) std::fputs(exp::terminal_table(outcome.runs).c_str(), stdout);
    if (!outcome.ranking_log.empty()) std::printf("\n%s", outcome.ranking_log.c_str());
    std::puts("\nread-offs (per system, the best deployment):");
    std::fputs(exp::readoff_terminal_table(outcome.readoffs).c_str(), stdout);
    const fs::path out(args->out);
    core::write_file_atomically((out / "summary.csv").string(), exp::summary_csv(outcome.runs));
    core::write_file_atomically((out / "readoffs.csv").string(), exp::readoffs_csv(outcome.readoffs));
    exp::write_results_h5((out / "results.h5").string(), e, outcome);
    core::write_file_atomically((out / "report.html").string(), exp::report_html(e, outcome, ctx.root));
    if (!args->baseline.empty()) {
      // Read back from both folders, exactly as `agentsim report BASELINE DIR` would.
      core::write_file_atomically((out / "compare.html").string(),
                                  exp::comparison_html(exp::read_run_tables({args->baseline, args->out})));
      std::printf("wrote %s/compare.html against the baseline %s\n", args->out.c_str(), args->baseline.c_str());
    }
    fs::remove_all(opt.cache_dir);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("wrote %s/{summary.csv,readoffs.csv,results.h5,report.html} (%zu runs, %lld reused) in %.2f s wall\n",
                args->out.c_str(), outcome.runs.size(), opt.reused_runs->load(), wall);
    return 0;
  }};
}

}  // namespace agentsim::cli
