#pragma once
// The report.html sink: one self-contained page (inline CSS and SVG, no external
// resources): the headline chart (total tokens/s per MW against per-agent speed, read-offs
// labelled), single-agent speed, TTFT (log), the read-off table, the step-time breakdown,
// the cache hit rate and what the figures rest on. It formats; every figure comes from the outcome.
#include <string>

#include "experiments/config/experiment.hpp"
#include "experiments/run/sweep_outcome.hpp"

namespace agentsim::exp {

// `root` is where the catalogs live (for the assumed catalog values the run used).
std::string report_html(const Experiment& e, const SweepOutcome& outcome, const std::string& root);

// The page's <head> and style, shared with the comparison page.
std::string report_page_head(const std::string& title);
// A number for an HTML table cell, printf-formatted; "&ndash;" when missing (NaN or infinite).
std::string html_cell(double v, const char* fmt);
// The page's end: a tiny script recording each plot's drawn area (for the browser test), </body>.
std::string report_page_tail();

}  // namespace agentsim::exp
