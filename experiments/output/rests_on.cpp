#include "experiments/output/rests_on.hpp"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "experiments/output/svg_plot.hpp"
#include "sim/core/csv_reader.hpp"

namespace agentsim::exp {

namespace {
namespace fs = std::filesystem;

std::string num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// The lines of a catalog file that say `assumed`, as table rows; "" when the file is absent.
std::string assumed_rows(const std::string& root, const std::string& rel, const std::string& entry) {
  std::ifstream in(fs::path(root) / rel);
  if (!in) return "";
  std::string rows, line;
  for (int n = 1; std::getline(in, line); ++n) {
    if (line.find("assumed") == std::string::npos) continue;
    const auto first = line.find_first_not_of(' ');
    rows += "<tr><td class=\"l\">" + html_escape(entry) + "</td><td class=\"l\"><code>" + html_escape(rel) +
            ":" + std::to_string(n) + "</code></td><td class=\"l\"><code>" +
            html_escape(first == std::string::npos ? line : line.substr(first)) + "</code></td></tr>\n";
  }
  return rows;
}

// Measured validation rows (experiments/validation/measured_runs.csv) for this model on these systems.
std::vector<std::string> validation_ids(const Experiment& e, const std::string& root) {
  const std::string file = (fs::path(root) / "experiments/validation/measured_runs.csv").string();
  std::ifstream in(file);
  if (!in) return {};
  std::vector<std::string> ids;
  core::CsvReader csv(in, file);
  const auto id = csv.column("id"), sys = csv.column("system"), model = csv.column("model");
  while (csv.next()) {
    if (csv.field(model) != e.model.name) continue;
    for (const auto& s : e.systems) {
      if (s.name == csv.field(sys)) ids.push_back(csv.field(id) + " (" + s.name + ")");
    }
  }
  return ids;
}

}  // namespace

std::string rests_on_html(const Experiment& e, const std::string& root) {
  std::string h =
      "<h2 id=\"rests-on\">What this rests on</h2>\n<h3>Efficiencies and calibration tables</h3>\n";
  if (e.serving.efficiency_given) {
    h += "<p>Constant efficiencies from <code>serving.efficiency</code> (achieved &divide; datasheet peak), "
         "replacing the accelerators' calibration profiles: compute " +
         num(e.serving.efficiency.compute) + ", memory " + num(e.serving.efficiency.memory) + ", network " +
         num(e.serving.efficiency.network) + ".</p>\n<ul class=\"calibration\">\n";
  } else {
    h += "<p>Kernel efficiencies from each accelerator's calibration profile (per-shape tables of achieved "
         "&divide; datasheet peak; tables marked derived are a sibling accelerator's); without one, datasheet "
         "peaks.</p>\n<ul class=\"calibration\">\n";
  }
  std::set<std::string> accelerators;
  for (const auto& s : e.systems) {
    const auto& a = s.accelerator;
    if (!accelerators.insert(a.name).second) continue;
    h += "<li>" + html_escape(a.name) + ": " +
         (a.efficiency_profile.empty()
              ? std::string("no calibration profile")
              : "calibration profile <code>" + html_escape(a.efficiency_profile) + "</code>" +
                    (e.serving.efficiency_given ? " (not used: the constants above replace it)" : "")) +
         "</li>\n";
  }
  h += "</ul>\n<h3>Assumed catalog values</h3>\n";
  std::string rows;
  std::set<std::string> seen;
  auto add = [&](const std::string& rel, const std::string& entry) {
    if (seen.insert(rel).second) rows += assumed_rows(root, rel, entry);
  };
  add("workloads/catalog/models/" + e.model.name + ".yaml", "model " + e.model.name);
  for (const auto& s : e.systems) {
    add("hwmodels/catalog/systems/" + s.name + ".yaml", "system " + s.name);
    add("hwmodels/catalog/accelerators/" + s.accelerator.name + ".yaml", "accelerator " + s.accelerator.name);
  }
  if (rows.empty()) {
    h += "<p>No catalog value of the entries this run used is marked <code>assumed</code>.</p>\n";
  } else {
    h += "<p>Catalog lines marked <code>assumed</code> in the entries this run used (the rest are sourced in "
         "the "
         "files' comments).</p>\n<table class=\"assumed\"><tr><th class=\"l\">entry</th><th "
         "class=\"l\">file:line</th>"
         "<th class=\"l\">value and reason</th></tr>\n" +
         rows + "</table>\n";
  }
  if (e.resolved_yaml.find("what_if") != std::string::npos) {
    h += "<p>This experiment overrides catalog values with <code>what_if</code> (the resolved configuration "
         "is in "
         "results.h5); the lines above are the catalog's, before the overrides.</p>\n";
  }
  h += "<h3>Validation</h3>\n";
  const auto ids = validation_ids(e, root);
  if (ids.empty()) {
    h += "<p class=\"validation\">No validation band for this regime: "
         "<code>experiments/validation/measured_runs.csv</code> has no measured point for " +
         html_escape(e.model.name) + " on these systems.</p>\n";
  } else {
    std::string list;
    for (const auto& id : ids) list += (list.empty() ? "" : ", ") + html_escape(id);
    h += "<p class=\"validation\">Measured points exist for " + html_escape(e.model.name) + " here: " + list +
         ". Their errors (the band) come from <code>agentsim validate experiments/validation/validate.yaml "
         "--measured experiments/validation/</code>; the current figures are in "
         "<code>docs/results/validation.md</code>.</p>\n";
  }
  return h;
}

}  // namespace agentsim::exp
