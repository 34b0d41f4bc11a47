#include "experiments/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace agentsim::exp {

namespace {

constexpr double kW = 680, kH = 360, kL = 80, kR = 170, kT = 30, kB = 50;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string f(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}
std::string tick(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}
const char* color(std::size_t i) { return kColors[i % (sizeof kColors / sizeof kColors[0])]; }

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  void settle(bool from_zero) {
    if (!(lo <= hi)) lo = 0, hi = 1;
    if (from_zero) lo = std::min(lo, 0.0);
    if (hi - lo < 1e-12) hi = lo + 1;
  }
};

std::string header(const std::string& title, double w = kW, double h = kH) {
  return "<svg class=\"plot\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" + f(w) + "\" height=\"" + f(h) +
         "\" viewBox=\"0 0 " + f(w) + " " + f(h) + "\" role=\"img\" aria-label=\"" + html_escape(title) +
         "\">\n<text x=\"" + f(w / 2) + "\" y=\"18\" text-anchor=\"middle\" font-size=\"14\">" + html_escape(title) +
         "</text>\n";
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string svg_line_chart(const LineChart& c) {
  Range xr, yr;
  auto tx = [&](double x) { return c.log_x ? std::log10(std::max(x, 1e-300)) : x; };
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) {
      if (std::isfinite(x) && std::isfinite(y) && (!c.log_x || x > 0)) xr.add(tx(x)), yr.add(y);
    }
    for (const auto& [x, y] : s.markers) {
      if (std::isfinite(x) && std::isfinite(y) && (!c.log_x || x > 0)) xr.add(tx(x)), yr.add(y);
    }
  }
  xr.settle(false);
  yr.settle(true);
  const double pw = kW - kL - kR, ph = kH - kT - kB;
  auto px = [&](double x) { return kL + (tx(x) - xr.lo) / (xr.hi - xr.lo) * pw; };
  auto py = [&](double y) { return kT + ph - (y - yr.lo) / (yr.hi - yr.lo) * ph; };
  std::string out = header(c.title);
  out += "<rect x=\"" + f(kL) + "\" y=\"" + f(kT) + "\" width=\"" + f(pw) + "\" height=\"" + f(ph) +
         "\" fill=\"none\" stroke=\"#444\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double yv = yr.lo + (yr.hi - yr.lo) * i / 4.0;
    const double xv = xr.lo + (xr.hi - xr.lo) * i / 4.0;
    const double xs = kL + pw * i / 4.0, ys = kT + ph - ph * i / 4.0;
    out += "<line x1=\"" + f(kL) + "\" x2=\"" + f(kL + pw) + "\" y1=\"" + f(ys) + "\" y2=\"" + f(ys) +
           "\" stroke=\"#ddd\"/><text x=\"" + f(kL - 6) + "\" y=\"" + f(ys + 4) +
           "\" text-anchor=\"end\" font-size=\"11\">" + tick(yv) + "</text>\n";
    out += "<text x=\"" + f(xs) + "\" y=\"" + f(kT + ph + 16) + "\" text-anchor=\"middle\" font-size=\"11\">" +
           tick(c.log_x ? std::pow(10.0, xv) : xv) + "</text>\n";
  }
  out += "<text x=\"" + f(kL + pw / 2) + "\" y=\"" + f(kH - 10) + "\" text-anchor=\"middle\" font-size=\"12\">" +
         html_escape(c.x_label) + (c.log_x ? " (log)" : "") + "</text>\n";
  out += "<text transform=\"translate(14," + f(kT + ph / 2) + ") rotate(-90)\" text-anchor=\"middle\" font-size=\"12\">" +
         html_escape(c.y_label) + "</text>\n";
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    std::string pts;
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (c.log_x && x <= 0)) continue;
      pts += (pts.empty() ? "" : " ") + f(px(x)) + "," + f(py(y));
    }
    out += "<g class=\"series\" data-name=\"" + html_escape(s.name) + "\">";
    if (!pts.empty()) {
      out += "<polyline fill=\"none\" stroke=\"" + std::string(color(i)) + "\" stroke-width=\"2\" points=\"" + pts +
             "\"/>";
    }
    for (const auto& [x, y] : s.points) {
      if (!std::isfinite(x) || !std::isfinite(y) || (c.log_x && x <= 0)) continue;
      out += "<circle cx=\"" + f(px(x)) + "\" cy=\"" + f(py(y)) + "\" r=\"2.5\" fill=\"" + color(i) + "\"/>";
    }
    for (const auto& [x, y] : s.markers) {
      if (!std::isfinite(x) || !std::isfinite(y)) continue;
      out += "<circle class=\"readoff\" cx=\"" + f(px(x)) + "\" cy=\"" + f(py(y)) + "\" r=\"6\" fill=\"none\" stroke=\"" +
             color(i) + "\" stroke-width=\"2\"/>";
    }
    out += "</g>\n";
    const double ly = kT + 10 + 16.0 * static_cast<double>(i);
    out += "<line x1=\"" + f(kW - kR + 12) + "\" x2=\"" + f(kW - kR + 30) + "\" y1=\"" + f(ly) + "\" y2=\"" + f(ly) +
           "\" stroke=\"" + color(i) + "\" stroke-width=\"3\"/><text x=\"" + f(kW - kR + 35) + "\" y=\"" +
           f(ly + 4) + "\" font-size=\"11\">" + html_escape(s.name) + "</text>\n";
  }
  return out + "</svg>\n";
}

std::string svg_stacked_bars(const StackedBars& c) {
  const double row = 24;
  const double h = kT + kB + row * static_cast<double>(std::max<std::size_t>(c.bars.size(), 1));
  const double pw = kW - kL - kR - 60;
  const double left = kL + 60;
  std::string out = header(c.title, kW, h);
  out += "<g class=\"series\" data-name=\"bars\">";
  for (std::size_t b = 0; b < c.bars.size(); ++b) {
    double total = 0;
    for (double v : c.values[b]) total += std::max(0.0, v);
    double x = left;
    const double y = kT + row * static_cast<double>(b);
    out += "<text x=\"" + f(left - 6) + "\" y=\"" + f(y + 15) + "\" text-anchor=\"end\" font-size=\"11\">" +
           html_escape(c.bars[b]) + "</text>";
    for (std::size_t p = 0; p < c.parts.size() && total > 0; ++p) {
      const double w = pw * std::max(0.0, c.values[b][p]) / total;
      out += "<rect x=\"" + f(x) + "\" y=\"" + f(y + 3) + "\" width=\"" + f(w) + "\" height=\"" + f(row - 6) +
             "\" fill=\"" + color(p) + "\"/>";
      x += w;
    }
  }
  out += "</g>\n";
  for (std::size_t p = 0; p < c.parts.size(); ++p) {
    const double ly = kT + 10 + 16.0 * static_cast<double>(p);
    out += "<rect x=\"" + f(kW - kR + 20) + "\" y=\"" + f(ly - 6) + "\" width=\"12\" height=\"12\" fill=\"" +
           color(p) + "\"/><text x=\"" + f(kW - kR + 37) + "\" y=\"" + f(ly + 4) + "\" font-size=\"11\">" +
           html_escape(c.parts[p]) + "</text>\n";
  }
  out += "<text x=\"" + f(left + pw / 2) + "\" y=\"" + f(h - 10) + "\" text-anchor=\"middle\" font-size=\"12\">" +
         html_escape(c.x_label) + "</text>\n";
  return out + "</svg>\n";
}

}  // namespace agentsim::exp
