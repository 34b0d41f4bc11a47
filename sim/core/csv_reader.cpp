#include "sim/core/csv_reader.hpp"

#include <array>
#include <charconv>
#include <cmath>

namespace agentsim::core {

void skip_utf8_bom(std::istream& in) {
  // Spreadsheet programs save CSV as UTF-8 with a byte-order mark; it is not part of the first
  // column's name. Anything else starting with 0xEF is left where it was.
  if (in.peek() != 0xEF) return;
  const std::istream::pos_type start = in.tellg();
  std::array<char, 3> b{};
  in.read(b.data(), 3);
  if (in.gcount() == 3 && b[1] == '\xBB' && b[2] == '\xBF') return;
  in.clear();
  in.seekg(start);
}

CsvReader::CsvReader(std::istream& in, std::string file) : in_(in), file_(std::move(file)) {
  skip_utf8_bom(in_);
  if (!read_record(header_)) throw Error(SourceLocation{file_, 1, ""}, "empty file: expected a header row");
  for (std::size_t i = 0; i < header_.size(); ++i) index_.emplace(header_[i], i);
}

bool CsvReader::read_record(std::vector<std::string>& out) {
  out.clear();
  std::string field;
  bool in_quotes = false;
  bool any = false;
  line_ = next_line_;
  int c;
  while ((c = in_.get()) != EOF) {
    any = true;
    const char ch = static_cast<char>(c);
    if (in_quotes) {
      if (ch == '"') {
        if (in_.peek() == '"') {
          field += '"';
          in_.get();
        } else {
          in_quotes = false;
        }
      } else {
        if (ch == '\n') ++next_line_;
        field += ch;
      }
      continue;
    }
    if (ch == '"' && field.empty()) {
      in_quotes = true;
    } else if (ch == ',') {
      out.push_back(std::move(field));
      field.clear();
    } else if (ch == '\n') {
      ++next_line_;
      if (!field.empty() && field.back() == '\r') field.pop_back();
      if (out.empty() && field.empty()) {  // blank line
        line_ = next_line_;
        any = false;
        continue;
      }
      out.push_back(std::move(field));
      return true;
    } else {
      field += ch;
    }
  }
  if (in_quotes) throw Error(SourceLocation{file_, line_, ""}, "unterminated quoted field");
  if (!any) return false;
  if (!field.empty() && field.back() == '\r') field.pop_back();
  out.push_back(std::move(field));
  return true;
}

bool CsvReader::next() {
  if (!read_record(row_)) return false;
  if (row_.size() != header_.size()) {
    throw Error(SourceLocation{file_, line_, ""},
                "expected " + std::to_string(header_.size()) + " fields as in the header, found " +
                    std::to_string(row_.size()));
  }
  return true;
}

bool CsvReader::has_column(std::string_view name) const { return index_.count(std::string(name)) != 0; }

std::size_t CsvReader::column(std::string_view name) const {
  auto it = index_.find(std::string(name));
  if (it == index_.end()) {
    throw Error(SourceLocation{file_, 1, std::string(name)}, "missing column in the header");
  }
  return it->second;
}

const std::string& CsvReader::field(std::size_t col) const { return row_.at(col); }

Error CsvReader::error_at(std::size_t col, const std::string& what) const {
  return Error(SourceLocation{file_, line_, col < header_.size() ? header_[col] : ""}, what);
}

double CsvReader::number(std::size_t col) const {
  const std::string& s = field(col);
  double v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size() || !std::isfinite(v)) {
    throw error_at(col, "expected a number, found '" + s + "'");
  }
  return v;
}

double CsvReader::number_or(std::size_t col, double fallback) const {
  return field(col).empty() ? fallback : number(col);
}

long long CsvReader::integer(std::size_t col) const {
  const std::string& s = field(col);
  long long v = 0;
  const auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (s.empty() || ec != std::errc{} || p != s.data() + s.size()) {
    throw error_at(col, "expected an integer, found '" + s + "'");
  }
  return v;
}

}  // namespace agentsim::core
