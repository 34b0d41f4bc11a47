#pragma once
// Inline SVG charts for the self-contained report: line charts (linear or log axes,
// 1-2-5 ticks, legend, shaded error bands, labelled markers whose labels are placed so that
// no two overlap, hover titles) and bar charts. Each SVG has a viewBox and width 100%, so it
// scales to the window. Plain data in, markup out.
#include <string>
#include <utility>
#include <vector>

namespace agentsim::exp {

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;   // (x, y); NaN points are skipped
  std::vector<std::string> point_titles;           // hover text per point (empty: none)
  std::vector<std::pair<double, double>> markers;  // highlighted points (e.g. read-offs)
  std::vector<std::string> marker_labels;          // text drawn beside each marker (empty: none)
  bool dashed = false;
  int color = -1;             // palette index (-1: the series' position)
  bool labels_below = false;  // marker labels under the marker (keeps two overlaid runs' labels apart)
  std::vector<std::pair<double, double>> band{};   // per point (lo, hi) of y, shaded (NaN: none there)
  std::vector<std::pair<double, double>> marker_bands{};  // per marker (lo, hi) of y, an error bar
};

struct LineChart {
  std::string id;  // the SVG element's id (empty: none)
  std::string title, x_label, y_label;
  bool log_x = false;
  bool log_y = false;
  double y_unit = 1;  // y values are divided by this for the axis (1e6: say "millions" in y_label)
  bool y_from_zero = true;
  std::vector<Series> series;
};

struct BarChart {
  std::string id;
  std::string title, value_label;
  std::vector<std::string> bars;    // one horizontal bar per entry
  std::vector<double> values;       // >= 0
  std::vector<std::string> titles;  // hover text per bar (empty: none)
  std::vector<int> colors;          // palette index per bar (empty: the bar's position)
  std::vector<bool> faded;          // drawn lighter (a comparison's baseline)
  std::vector<std::pair<double, double>> bands{};  // per bar (lo, hi), an error bar (NaN: none)
};

struct StackedBars {
  std::string title, x_label;
  std::vector<std::string> parts;           // stack components, legend order
  std::vector<std::string> bars;            // one bar per entry
  std::vector<std::vector<double>> values;  // [bar][part], >= 0
};

std::string svg_line_chart(const LineChart& c);
std::string svg_bar_chart(const BarChart& c);
std::string svg_stacked_bars(const StackedBars& c);
// Escapes &, <, >, " for HTML text and attributes.
std::string html_escape(const std::string& s);

// A generous estimate of the width (px) of `text` at `font_size` px in a sans-serif font, for
// placing labels before a browser lays them out.
double text_width_px(const std::string& text, double font_size);

}  // namespace agentsim::exp
