#pragma once
// Inline SVG charts for the self-contained report: line charts with axes,
// ticks, a legend and optional markers, and a stacked bar chart. Plain strings
// in, markup out; deterministic formatting.
#include <string>
#include <utility>
#include <vector>

namespace agentsim::exp {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;   // (x, y); NaN points are skipped
  std::vector<std::pair<double, double>> markers;  // highlighted points (e.g. read-offs)
};

struct LineChart {
  std::string title, x_label, y_label;
  bool log_x = false;
  std::vector<Series> series;
};

struct StackedBars {
  std::string title, x_label;
  std::vector<std::string> parts;   // stack components, legend order
  std::vector<std::string> bars;    // one bar per entry
  std::vector<std::vector<double>> values;  // [bar][part], >= 0
};

std::string svg_line_chart(const LineChart& c);
std::string svg_stacked_bars(const StackedBars& c);
// Escapes &, <, >, " for HTML text and attributes.
std::string html_escape(const std::string& s);

}  // namespace agentsim::exp
