#include "experiments/output/svg_plot.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "experiments/output/nice_ticks.hpp"

namespace agentsim::exp {

namespace {

constexpr double kW = 820, kH = 440, kL = 70, kR = 220, kT = 34, kB = 52;
constexpr const char* kColors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd",
                                   "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22"};

std::string f(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f", v);
  return buf;
}
const char* color(std::size_t i) { return kColors[i % (sizeof kColors / sizeof kColors[0])]; }

struct Range {
  double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
  void add(double v) {
    if (std::isfinite(v)) lo = std::min(lo, v), hi = std::max(hi, v);
  }
  bool empty() const { return !(lo <= hi); }
};

// One axis: the ticks in data units and the mapping to [0, 1] along the axis.
struct Axis {
  bool log = false;
  std::vector<double> ticks;
  double step = 0;      // linear tick step (for labels)
  double a = 0, b = 1;  // axis ends, in data units (log axes: their log10)
  static Axis make(Range r, bool log, bool from_zero) {
    Axis x;
    x.log = log;
    if (r.empty()) r.lo = log ? 1 : 0, r.hi = log ? 10 : 1;
    if (log) {
      x.ticks = decade_ticks(r.lo, r.hi);
      x.a = std::log10(x.ticks.front()), x.b = std::log10(x.ticks.back());
    } else {
      if (from_zero) r.lo = std::min(r.lo, 0.0);
      x.ticks = nice_ticks(r.lo, r.hi, 5);
      x.step = x.ticks.size() > 1 ? x.ticks[1] - x.ticks[0] : 0;
      x.a = x.ticks.front(), x.b = x.ticks.back();
    }
    if (x.b - x.a < 1e-12) x.b = x.a + 1;
    return x;
  }
  double unit(double v) const { return ((log ? std::log10(std::max(v, 1e-300)) : v) - a) / (b - a); }
  bool fits(double v) const { return std::isfinite(v) && (!log || v > 0); }
};

std::string header(const std::string& id, const std::string& title, double w, double h) {
  return "<svg class=\"plot\"" + (id.empty() ? std::string() : " id=\"" + html_escape(id) + "\"") +
         " xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 " + f(w) + " " + f(h) +
         "\" width=\"100%\" preserveAspectRatio=\"xMidYMid meet\" role=\"img\" aria-label=\"" +
         html_escape(title) + "\">\n<text class=\"title\" x=\"" + f(w / 2) +
         "\" y=\"20\" text-anchor=\"middle\" font-size=\"15\" "
         "font-weight=\"bold\">" +
         html_escape(title) + "</text>\n";
}

// A label's box in SVG units, for keeping labels apart.
struct Box {
  double x0, y0, x1, y1;
  bool overlaps(const Box& o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const Box& o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
};

// Where one read-off label goes: its text's baseline start, and whether it was pushed away from
// its marker (then a leader line joins them).
struct LabelPlace {
  double x = 0, y = 0;
  bool moved = false;
};

constexpr double kLabelFont = 12;

// Greedy placement in marker order: the first of the candidate spots (beside the marker, then
// stepping away from it vertically) whose box stays in `area` and clears every read-off circle
// and every label placed before it.
std::vector<std::vector<LabelPlace>> place_labels(const std::vector<std::vector<std::pair<double, double>>>& at,
                                                  const std::vector<std::vector<std::string>>& text,
                                                  const std::vector<bool>& below, const Box& area) {
  std::vector<Box> taken;
  for (const auto& s : at) {
    for (const auto& [x, y] : s) taken.push_back({x - 9, y - 9, x + 9, y + 9});
  }
  std::vector<std::vector<LabelPlace>> out(at.size());
  for (std::size_t i = 0; i < at.size(); ++i) {
    out[i].resize(at[i].size());
    for (std::size_t m = 0; m < at[i].size(); ++m) {
      if (m >= text[i].size() || text[i][m].empty()) continue;
      const auto [x, y] = at[i][m];
      const double w = text_width_px(text[i][m], kLabelFont);
      const double up = -9, down = 20, step = kLabelFont + 4;
      std::vector<std::pair<double, double>> spots;  // baseline starts
      for (int k = 0; k <= 12; ++k) {
        const double lift = step * k;
        const double first = below[i] ? down + lift : up - lift, second = below[i] ? up - lift : down + lift;
        for (double dy : {first, second}) {
          spots.emplace_back(x + 11, y + dy);
          spots.emplace_back(x - 11 - w, y + dy);
        }
      }
      std::size_t chosen = 0;
      bool found = false;
      for (std::size_t c = 0; c < spots.size() && !found; ++c) {
        const Box b{spots[c].first - 2, spots[c].second - kLabelFont, spots[c].first + w + 2, spots[c].second + 4};
        if (!b.inside(area)) continue;
        bool clear = true;
        for (const Box& t : taken) clear = clear && !b.overlaps(t);
        if (clear) chosen = c, found = true;
      }
      const auto [bx, by] = spots[chosen];
      taken.push_back({bx - 2, by - kLabelFont, bx + w + 2, by + 4});
      out[i][m] = {bx, by, chosen >= 4};
    }
  }
  return out;
}

std::string title_child(const std::vector<std::string>& titles, std::size_t i) {
  return i < titles.size() && !titles[i].empty() ? "<title>" + html_escape(titles[i]) + "</title>" : "";
}

}  // namespace

std::string html_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

double text_width_px(const std::string& text, double font_size) {
  // Em fractions a little above DejaVu Sans' and Liberation Sans' advance widths.
  double em = 0;
  for (unsigned char ch : text) {
    if ((ch & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    if (ch == 'M' || ch == 'W' || ch == 'm' || ch == 'w') {
      em += 0.9;
    } else if ((ch >= '0' && ch <= '9') || (ch >= 'A' && ch <= 'Z')) {
      em += 0.68;
    } else if (ch >= 'a' && ch <= 'z') {
      em += 0.62;
    } else {
      em += 0.4;
    }
  }
  return em * font_size;
}

std::string svg_line_chart(const LineChart& c) {
  const double unit = c.y_unit > 0 ? c.y_unit : 1;
  Range xr, yr;
  auto add = [&](double x, double y) {
    if (std::isfinite(x) && std::isfinite(y) && (!c.log_x || x > 0) && (!c.log_y || y > 0))
      xr.add(x), yr.add(y / unit);
  };
  for (const auto& s : c.series) {
    for (const auto& [x, y] : s.points) add(x, y);
    for (const auto& [x, y] : s.markers) add(x, y);
    for (std::size_t p = 0; p < s.band.size() && p < s.points.size(); ++p) {
      add(s.points[p].first, s.band[p].first), add(s.points[p].first, s.band[p].second);
    }
    for (std::size_t m = 0; m < s.marker_bands.size() && m < s.markers.size(); ++m) {
      add(s.markers[m].first, s.marker_bands[m].first), add(s.markers[m].first, s.marker_bands[m].second);
    }
  }
  const Axis xa = Axis::make(xr, c.log_x, false);
  const Axis ya = Axis::make(yr, c.log_y, c.y_from_zero);
  // The legend sits under the plot, two entries a row, so long names never crowd the plot.
  const double pw = kW - kL - 24, ph = kH - kT - kB;
  const std::size_t legend_rows = (c.series.size() + 1) / 2;
  const double height = kH + 20.0 * static_cast<double>(legend_rows) + 10;
  auto px = [&](double x) { return kL + xa.unit(x) * pw; };
  auto py = [&](double y) { return kT + ph - ya.unit(y / unit) * ph; };
  auto ok = [&](double x, double y) { return xa.fits(x) && ya.fits(y); };
  std::string out = header(c.id, c.title, kW, height);
  for (double t : ya.ticks) {
    const double ys = kT + ph - ya.unit(t) * ph;
    out += "<line x1=\"" + f(kL) + "\" x2=\"" + f(kL + pw) + "\" y1=\"" + f(ys) + "\" y2=\"" + f(ys) +
           "\" stroke=\"#e3e3e3\"/><text class=\"tick y\" x=\"" + f(kL - 7) + "\" y=\"" + f(ys + 4) +
           "\" text-anchor=\"end\" font-size=\"12\">" + tick_label(t, ya.step) + "</text>\n";
  }
  for (double t : xa.ticks) {
    const double xs = kL + xa.unit(t) * pw;
    out += "<line x1=\"" + f(xs) + "\" x2=\"" + f(xs) + "\" y1=\"" + f(kT) + "\" y2=\"" + f(kT + ph) +
           "\" stroke=\"#f0f0f0\"/><text class=\"tick x\" x=\"" + f(xs) + "\" y=\"" + f(kT + ph + 17) +
           "\" text-anchor=\"middle\" font-size=\"12\">" + tick_label(t, xa.step) + "</text>\n";
  }
  out += "<rect x=\"" + f(kL) + "\" y=\"" + f(kT) + "\" width=\"" + f(pw) + "\" height=\"" + f(ph) +
         "\" fill=\"none\" stroke=\"#444\"/>\n";
  out += "<text class=\"axis-title x\" x=\"" + f(kL + pw / 2) + "\" y=\"" + f(kH - 12) +
         "\" text-anchor=\"middle\" font-size=\"13\">" + html_escape(c.x_label) + "</text>\n";
  out += "<text class=\"axis-title y\" transform=\"translate(18," + f(kT + ph / 2) +
         ") rotate(-90)\" text-anchor=\"middle\" font-size=\"13\">" + html_escape(c.y_label) + "</text>\n";
  std::vector<std::vector<std::pair<double, double>>> marker_at;
  std::vector<std::vector<std::string>> marker_text;
  std::vector<bool> below;
  for (const auto& s : c.series) {
    marker_at.emplace_back();
    marker_text.emplace_back();
    below.push_back(s.labels_below);
    for (std::size_t m = 0; m < s.markers.size(); ++m) {
      const auto [x, y] = s.markers[m];
      if (!ok(x, y)) continue;
      marker_at.back().emplace_back(px(x), py(y));
      marker_text.back().push_back(m < s.marker_labels.size() ? s.marker_labels[m] : "");
    }
  }
  const auto places = place_labels(marker_at, marker_text, below, Box{kL, kT, kL + pw, kT + ph});
  for (std::size_t i = 0; i < c.series.size(); ++i) {
    const auto& s = c.series[i];
    const char* col = color(s.color >= 0 ? static_cast<std::size_t>(s.color) : i);
    std::string pts;
    for (const auto& [x, y] : s.points) {
      if (ok(x, y)) pts += (pts.empty() ? "" : " ") + f(px(x)) + "," + f(py(y));
    }
    out += "<g class=\"series\" data-name=\"" + html_escape(s.name) + "\">";
    // The error band: one shaded polygon per run of consecutive points that have one.
    for (std::size_t p = 0; p < s.points.size();) {
      std::size_t q = p;
      auto banded = [&](std::size_t k) {
        return k < s.band.size() && ok(s.points[k].first, s.band[k].first) && ok(s.points[k].first, s.band[k].second);
      };
      while (q < s.points.size() && banded(q)) ++q;
      if (q - p >= 2) {
        std::string poly;
        for (std::size_t k = p; k < q; ++k) poly += f(px(s.points[k].first)) + "," + f(py(s.band[k].second)) + " ";
        for (std::size_t k = q; k-- > p;) poly += f(px(s.points[k].first)) + "," + f(py(s.band[k].first)) + " ";
        poly.pop_back();
        out += "<polygon class=\"band\" fill=\"" + std::string(col) + "\" fill-opacity=\"0.14\" stroke=\"none\" points=\"" +
               poly + "\"/>";
      }
      p = q == p ? p + 1 : q;
    }
    if (!pts.empty()) {
      out += "<polyline fill=\"none\" stroke=\"" + std::string(col) + "\" stroke-width=\"2.5\"" +
             (s.dashed ? " stroke-dasharray=\"7 4\"" : "") + " points=\"" + pts + "\"/>";
    }
    for (std::size_t p = 0; p < s.points.size(); ++p) {
      const auto [x, y] = s.points[p];
      if (!ok(x, y)) continue;
      out += "<circle class=\"point\" cx=\"" + f(px(x)) + "\" cy=\"" + f(py(y)) + "\" r=\"4.5\" fill=\"" +
             col + "\">" + title_child(s.point_titles, p) + "</circle>";
    }
    std::size_t shown = 0;  // index among this series' drawable markers (places[i])
    for (std::size_t m = 0; m < s.markers.size(); ++m) {
      const auto [x, y] = s.markers[m];
      if (!ok(x, y)) continue;
      const LabelPlace& at = places[i][shown++];
      if (m < s.marker_bands.size() && ok(x, s.marker_bands[m].first) && ok(x, s.marker_bands[m].second)) {
        const double lo = py(s.marker_bands[m].first), hi = py(s.marker_bands[m].second);
        out += "<path class=\"readoff-band\" d=\"M" + f(px(x) - 5) + " " + f(lo) + "h10M" + f(px(x)) + " " + f(lo) +
               "V" + f(hi) + "M" + f(px(x) - 5) + " " + f(hi) + "h10\" stroke=\"" + col +
               "\" stroke-width=\"1.5\" fill=\"none\"/>";
      }
      out += "<circle class=\"readoff\" cx=\"" + f(px(x)) + "\" cy=\"" + f(py(y)) +
             "\" r=\"8\" fill=\"none\" stroke=\"" + col + "\" stroke-width=\"2\">" +
             title_child(s.marker_labels, m) + "</circle>";
      if (m < s.marker_labels.size() && !s.marker_labels[m].empty()) {
        if (at.moved) {
          const bool left = at.x < px(x);
          out += "<line class=\"leader\" x1=\"" + f(px(x)) + "\" y1=\"" + f(py(y)) + "\" x2=\"" +
                 f(left ? at.x + text_width_px(s.marker_labels[m], kLabelFont) : at.x) + "\" y2=\"" +
                 f(at.y - 4) + "\" stroke=\"" + col + "\" stroke-width=\"1\"/>";
        }
        out += "<text class=\"readoff-label\" x=\"" + f(at.x) + "\" y=\"" + f(at.y) +
               "\" font-size=\"12\" fill=\"" + col +
               "\" stroke=\"#fff\" stroke-width=\"3\" "
               "paint-order=\"stroke\">" +
               html_escape(s.marker_labels[m]) + "</text>";
      }
    }
    out += "</g>\n";
    const double lx = kL + (i % 2 == 0 ? 0 : pw / 2);
    const double ly = kH + 8 + 20.0 * static_cast<double>(i / 2);
    out += "<line x1=\"" + f(lx) + "\" x2=\"" + f(lx + 26) + "\" y1=\"" + f(ly) + "\" y2=\"" + f(ly) +
           "\" stroke=\"" + col + "\" stroke-width=\"3\"" + (s.dashed ? " stroke-dasharray=\"7 4\"" : "") +
           "/><text class=\"legend\" x=\"" + f(lx + 32) + "\" y=\"" + f(ly + 4) + "\" font-size=\"12\">" +
           html_escape(s.name) + "</text>\n";
  }
  return out + "</svg>\n";
}

std::string svg_bar_chart(const BarChart& c) {
  std::size_t longest = 0;
  for (const auto& b : c.bars) longest = std::max(longest, b.size());
  const double row = 34, right = 60;
  const double left = std::clamp(24.0 + 7.2 * static_cast<double>(longest), 120.0, kW / 2);
  const double h = kT + kB + row * static_cast<double>(std::max<std::size_t>(c.bars.size(), 1));
  const double pw = kW - left - right;
  Range r;
  for (double v : c.values) r.add(v);
  for (const auto& [lo, hi] : c.bands) r.add(lo), r.add(hi);
  const Axis xa = Axis::make(r, false, true);
  std::string out = header(c.id, c.title, kW, h);
  const double bottom = kT + row * static_cast<double>(c.bars.size());
  for (double t : xa.ticks) {
    const double xs = left + xa.unit(t) * pw;
    out += "<line x1=\"" + f(xs) + "\" x2=\"" + f(xs) + "\" y1=\"" + f(kT) + "\" y2=\"" + f(bottom) +
           "\" stroke=\"#e3e3e3\"/><text class=\"tick x\" x=\"" + f(xs) + "\" y=\"" + f(bottom + 17) +
           "\" text-anchor=\"middle\" font-size=\"12\">" + tick_label(t, xa.step) + "</text>\n";
  }
  out += "<g class=\"series\" data-name=\"bars\">";
  for (std::size_t b = 0; b < c.bars.size(); ++b) {
    const double y = kT + row * static_cast<double>(b);
    const double v = b < c.values.size() && std::isfinite(c.values[b]) ? std::max(0.0, c.values[b]) : 0;
    const double w = xa.unit(v) * pw;
    out += "<text class=\"bar-label\" x=\"" + f(left - 8) + "\" y=\"" + f(y + row / 2 + 4) +
           "\" text-anchor=\"end\" font-size=\"13\">" + html_escape(c.bars[b]) + "</text>";
    out += "<rect class=\"bar\" x=\"" + f(left) + "\" y=\"" + f(y + 5) + "\" width=\"" + f(w) +
           "\" height=\"" + f(row - 10) + "\" fill=\"" +
           color(b < c.colors.size() ? static_cast<std::size_t>(c.colors[b]) : b) + "\"" +
           (b < c.faded.size() && c.faded[b] ? " fill-opacity=\"0.5\"" : "") + ">" +
           title_child(c.titles, b) + "</rect>";
    double end = left + w;
    if (b < c.bands.size() && std::isfinite(c.bands[b].first) && std::isfinite(c.bands[b].second)) {
      const double lo = left + xa.unit(std::max(0.0, c.bands[b].first)) * pw;
      const double hi = left + xa.unit(std::max(0.0, c.bands[b].second)) * pw;
      const double mid = y + row / 2;
      out += "<path class=\"bar-band\" d=\"M" + f(lo) + " " + f(mid - 5) + "v10M" + f(lo) + " " + f(mid) + "H" + f(hi) +
             "M" + f(hi) + " " + f(mid - 5) + "v10\" stroke=\"#222\" stroke-width=\"1.5\" fill=\"none\"/>";
      end = std::max(end, hi);
    }
    const bool has_value = b < c.values.size() && std::isfinite(c.values[b]);
    out += "<text class=\"bar-value\" x=\"" + f(end + 6) + "\" y=\"" + f(y + row / 2 + 4) +
           "\" font-size=\"12\">" + (has_value ? readable_number(v) : std::string("no figure")) + "</text>";
  }
  out += "</g>\n<text class=\"axis-title x\" x=\"" + f(left + pw / 2) + "\" y=\"" + f(h - 12) +
         "\" text-anchor=\"middle\" font-size=\"13\">" + html_escape(c.value_label) + "</text>\n";
  return out + "</svg>\n";
}

std::string svg_stacked_bars(const StackedBars& c) {
  const double row = 28;
  const double h = kT + kB + row * static_cast<double>(std::max<std::size_t>(c.bars.size(), 1));
  const double left = 190;
  const double pw = kW - left - kR;
  std::string out = header("", c.title, kW, h);
  out += "<g class=\"series\" data-name=\"bars\">";
  for (std::size_t b = 0; b < c.bars.size(); ++b) {
    double total = 0;
    for (double v : c.values[b]) total += std::max(0.0, v);
    double x = left;
    const double y = kT + row * static_cast<double>(b);
    out += "<text x=\"" + f(left - 8) + "\" y=\"" + f(y + 18) + "\" text-anchor=\"end\" font-size=\"12\">" +
           html_escape(c.bars[b]) + "</text>";
    for (std::size_t p = 0; p < c.parts.size() && total > 0; ++p) {
      const double w = pw * std::max(0.0, c.values[b][p]) / total;
      char pct[32];
      std::snprintf(pct, sizeof pct, "%.0f%%", 100.0 * std::max(0.0, c.values[b][p]) / total);
      out += "<rect x=\"" + f(x) + "\" y=\"" + f(y + 4) + "\" width=\"" + f(w) + "\" height=\"" + f(row - 8) +
             "\" fill=\"" + color(p) + "\"><title>" + html_escape(c.bars[b] + ": " + c.parts[p] + " " + pct) +
             "</title></rect>";
      x += w;
    }
  }
  out += "</g>\n";
  for (std::size_t p = 0; p < c.parts.size(); ++p) {
    const double ly = kT + 12 + 20.0 * static_cast<double>(p);
    out += "<rect x=\"" + f(kW - kR + 20) + "\" y=\"" + f(ly - 6) + "\" width=\"12\" height=\"12\" fill=\"" +
           color(p) + "\"/><text class=\"legend\" x=\"" + f(kW - kR + 38) + "\" y=\"" + f(ly + 4) +
           "\" font-size=\"12\">" + html_escape(c.parts[p]) + "</text>\n";
  }
  out += "<text x=\"" + f(left + pw / 2) + "\" y=\"" + f(h - 12) +
         "\" text-anchor=\"middle\" font-size=\"13\">" + html_escape(c.x_label) + "</text>\n";
  return out + "</svg>\n";
}

}  // namespace agentsim::exp
