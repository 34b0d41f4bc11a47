// agentsim calibrate --backend cpu|cuda --out FILE.h5 [--quick]
// agentsim calibrate fit FILE.h5 --out PROFILE.yaml
// agentsim calibrate check FILE.h5 PROFILE.yaml
// agentsim calibrate import-published [--kernels DIR] [--out DIR]
#include <cstdio>
#include <fstream>
#include <iterator>
#include <memory>

#include "calibration/calibration_file.hpp"
#include "calibration/cross_check.hpp"
#include "calibration/fitter.hpp"
#include "calibration/microbenchmarks.hpp"
#include "calibration/published_import.hpp"
#include "experiments/config/catalog.hpp"
#include "sim/core/atomic_write.hpp"
#include "experiments/cli/command.hpp"
#include "experiments/cli/option_values.hpp"
#include "sim/core/error.hpp"

namespace agentsim::cli {
namespace {

// The process's own argv, recorded in the calibration file as provenance.
std::string own_command_line() {
  std::ifstream in("/proc/self/cmdline", std::ios::binary);
  std::string raw((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  while (!raw.empty() && raw.back() == '\0') raw.pop_back();
  for (char& c : raw) {
    if (c == '\0') c = ' ';
  }
  return raw;
}

void print_fit(const calib::EfficiencyProfile& p) {
  std::printf("%-22s %-8s %12s %7s %9s %9s   %5s %9s\n", "table", "quantity", "peak", "points", "fit rms", "fit max",
              "held", "held rms");
  for (const auto& [name, t] : p.tables) {
    std::printf("%-22s %-8s %12.4g %7zu %8.1f%% %8.1f%%   %5zu %8.1f%%\n", name.c_str(), calib::to_string(t.quantity).c_str(),
                t.peak, t.fit_error.points, 100 * t.fit_error.rms_rel_error, 100 * t.fit_error.max_rel_error,
                t.held_out_error.points, 100 * t.held_out_error.rms_rel_error);
  }
}

}  // namespace

Command add_calibrate_command(CLI::App& app, const Context& ctx) {
  struct Args {
    std::string backend;
    std::string out;
    bool quick = false;
    bool list_backends = false;
    std::string fit_file;
    std::string fit_out = "profile.yaml";
    std::string check_file;
    std::string check_profile;
    std::string show_file;
    std::string show_table;
    std::string kernels_dir = "calibration/data/published/kernels";
    std::string measured_dir = "calibration/data/measured";
    std::string profiles_dir = "calibration/data/profiles";
  };
  auto args = std::make_shared<Args>();
  CLI::App* sub = app.add_subcommand("calibrate", "run microbenchmarks into an HDF5 calibration file (or fit/check one)");
  sub->require_subcommand(0, 1);
  sub->add_option("--backend", args->backend, "cpu | cuda (see --list-backends)");
  sub->add_option("--out", args->out, "calibration file to write (HDF5)");
  sub->add_flag("--quick", args->quick, "small grids and short timings (about 10 s on the CPU backend)");
  sub->add_flag("--list-backends", args->list_backends, "print the backends built into this binary");
  CLI::App* fit = sub->add_subcommand("fit", "fit a calibration file into an efficiency profile (YAML)");
  fit->add_option("file", args->fit_file, "calibration file (HDF5)")->required();
  fit->add_option("--out", args->fit_out, "profile to write")->capture_default_str();
  CLI::App* check = sub->add_subcommand("check", "predict a calibration file's kernels with a profile; error per table");
  check->add_option("file", args->check_file, "calibration file (HDF5)")->required();
  check->add_option("profile", args->check_profile, "efficiency profile (YAML)")->required();

  CLI::App* show = sub->add_subcommand("show", "print a calibration file's attributes and tables");
  show->add_option("file", args->show_file, "calibration file (HDF5)")->required();
  show->add_option("--table", args->show_table, "print only this table's rows (CSV)");

  CLI::App* imp = sub->add_subcommand(
      "import-published",
      "published kernel measurements (CSV) -> one calibration file (HDF5) and profile (YAML) per catalog accelerator");
  imp->add_option("--kernels", args->kernels_dir, "folder of gemm/attention/collectives/memory/overheads.csv")
      ->capture_default_str();
  imp->add_option("--measured", args->measured_dir,
                  "folder of this repository's device runs (calibration files, *.h5) and their anchors.yaml")
      ->capture_default_str();
  imp->add_option("--out", args->profiles_dir, "folder for <accelerator>.h5 and <accelerator>.yaml")->capture_default_str();

  const std::string root = ctx.root;
  return Command{sub, [args, fit, check, show, imp, root]() {
    if (imp->parsed()) {
      const exp::Catalog catalog = exp::load_catalog(root);
      std::vector<hw::Accelerator> accs;
      for (const std::string& n : catalog.accelerators.names()) accs.push_back(catalog.accelerators.get(n));
      std::vector<hw::System> systems;
      for (const std::string& n : catalog.systems.names()) systems.push_back(catalog.systems.get(n));
      // Defaults resolve against the source root (so the command works from any folder);
      // profiles record the folder as given (relative by default: the same on every checkout).
      auto resolved = [&](const char* option, const std::string& v) {
        return imp->get_option(option)->count() == 0 ? root + "/" + v : v;
      };
      const std::string out_dir = resolved("--out", args->profiles_dir);
      require_output_folder("--out", out_dir);
      const calib::PublishedImport r =
          calib::import_published(resolved("--kernels", args->kernels_dir), accs, systems, args->profiles_dir,
                                  resolved("--measured", args->measured_dir));
      calib::write_published_import(r, out_dir);
      std::fputs(calib::import_summary(r).c_str(), stdout);
      std::printf("wrote %zu calibration files and %zu profiles to %s\n", r.measured.size(), r.profiles.size(),
                  args->profiles_dir.c_str());
      return 0;
    }
    if (show->parsed()) {
      const calib::CalibrationFile file = calib::read_calibration_file(args->show_file);
      if (args->show_table.empty()) {
        for (const auto& [k, v] : file.attributes) std::printf("%s: %s\n", k.c_str(), v.c_str());
        for (const auto& [name, t] : file.tables) std::printf("table %s: %zu rows\n", name.c_str(), t.rows());
        return 0;
      }
      const auto it = file.tables.find(args->show_table);
      if (it == file.tables.end())
        throw core::Error(core::SourceLocation{args->show_file, 0, "/" + args->show_table}, "no such table");
      const calib::MeasurementTable& t = it->second;
      for (std::size_t c = 0; c < t.column_order.size(); ++c) std::printf("%s%s", c ? "," : "", t.column_order[c].c_str());
      std::printf("\n");
      for (std::size_t r = 0; r < t.rows(); ++r) {
        for (std::size_t c = 0; c < t.column_order.size(); ++c) std::printf("%s%.6g", c ? "," : "", t.column(t.column_order[c])[r]);
        std::printf("\n");
      }
      return 0;
    }
    if (fit->parsed()) {
      const calib::CalibrationFile file = calib::read_calibration_file(args->fit_file);
      const calib::EfficiencyProfile profile = calib::fit_profile(file);
      core::write_file_atomically(args->fit_out, calib::to_yaml(profile));
      print_fit(profile);
      std::printf("\ncross-check (roofline with the fitted efficiencies predicting each measured kernel's time):\n%s",
                  calib::cross_check_table(calib::cross_check(file, profile)).c_str());
      std::printf("wrote %s (%zu tables)\n", args->fit_out.c_str(), profile.tables.size());
      return 0;
    }
    if (check->parsed()) {
      const calib::CalibrationFile file = calib::read_calibration_file(args->check_file);
      const calib::EfficiencyProfile profile = calib::load_profile(args->check_profile);
      std::fputs(calib::cross_check_table(calib::cross_check(file, profile)).c_str(), stdout);
      return 0;
    }
    if (args->list_backends) {
      for (const auto& b : calib::available_backends()) std::printf("%s\n", b.c_str());
      return 0;
    }
    if (args->backend.empty()) throw core::Error(core::SourceLocation{"", 0, "--backend"}, "required (cpu or cuda)");
    if (args->out.empty()) throw core::Error(core::SourceLocation{"", 0, "--out"}, "required (the HDF5 file to write)");
    auto bench = calib::make_microbenchmarks(args->backend);
    calib::RunOptions o;
    o.quick = args->quick;
    o.command_line = own_command_line();
    o.progress = [](const std::string& line) {
      std::printf("  %s\n", line.c_str());
      std::fflush(stdout);
    };
    std::printf("calibrating backend %s%s\n", args->backend.c_str(), args->quick ? " (quick)" : "");
    std::fflush(stdout);
    const calib::CalibrationFile file = bench->run(o);
    calib::write_calibration_file(args->out, file);
    std::printf("device: %s\nwrote %s (%zu tables)\n", file.attributes.at("device").c_str(), args->out.c_str(), file.tables.size());
    return 0;
  }};
}

}  // namespace agentsim::cli
