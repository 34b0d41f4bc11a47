#include "sim/core/csv_writer.hpp"

#include <charconv>
#include <cmath>

#include "sim/core/error.hpp"

namespace agentsim::core {

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\r\n") == std::string_view::npos) return std::string(s);
  std::string q = "\"";
  for (char c : s) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + "\"";
}

std::string csv_number(double v) {
  if (!std::isfinite(v)) return {};
  char buf[48];
  // to_chars ignores the C locale; general/10 digits is printf's %.10g.
  const auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 10);
  return std::string(buf, r.ptr);
}

CsvWriter::CsvWriter(const std::vector<std::string_view>& header) : columns_(header.size()) {
  for (auto h : header) text(h);
  end_row();
}

void CsvWriter::separator() {
  if (cells_++ > 0) out_ += ',';
}

CsvWriter& CsvWriter::text(std::string_view s) {
  separator();
  out_ += csv_field(s);
  return *this;
}

CsvWriter& CsvWriter::number(double v) {
  separator();
  out_ += csv_number(v);
  return *this;
}

CsvWriter& CsvWriter::integer(long long v) {
  separator();
  out_ += std::to_string(v);
  return *this;
}

CsvWriter& CsvWriter::unsigned_integer(std::uint64_t v) {
  separator();
  out_ += std::to_string(v);
  return *this;
}

CsvWriter& CsvWriter::boolean(bool v) {
  separator();
  out_ += v ? "true" : "false";
  return *this;
}

void CsvWriter::end_row() {
  if (cells_ != columns_) {
    throw Error("CSV row has " + std::to_string(cells_) + " cells, header has " + std::to_string(columns_));
  }
  out_ += '\n';
  cells_ = 0;
}

}  // namespace agentsim::core
