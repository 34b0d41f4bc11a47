#pragma once
// A strict reader of comma-separated files with a header row (RFC 4180 quoting).
// Every error names the file, the 1-based line and the column.
#include <istream>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "sim/core/error.hpp"

namespace agentsim::core {

// Skips a UTF-8 byte-order mark at the stream's start (spreadsheets write one); else reads nothing.
void skip_utf8_bom(std::istream& in);

class CsvReader {
 public:
  // Reads the header from `in`; `file` is only used in messages.
  CsvReader(std::istream& in, std::string file);

  // Advances to the next data row; false at end of input. Blank lines are skipped.
  bool next();
  int line() const { return line_; }
  const std::string& file() const { return file_; }

  // Index of a header column; throws if the header lacks it.
  std::size_t column(std::string_view name) const;
  bool has_column(std::string_view name) const;
  // The header row's column names, in file order.
  const std::vector<std::string>& header() const { return header_; }

  // Raw field of the current row.
  const std::string& field(std::size_t col) const;
  // Typed fields; an empty or malformed value is an error naming file:line and column.
  double number(std::size_t col) const;
  long long integer(std::size_t col) const;
  // Like number() but returns `fallback` for an empty field.
  double number_or(std::size_t col, double fallback) const;

  // Error located at the current row and the given column.
  Error error_at(std::size_t col, const std::string& what) const;

 private:
  bool read_record(std::vector<std::string>& out);
  std::istream& in_;
  std::string file_;
  int line_ = 0;        // line of the current record's start
  int next_line_ = 1;   // line the next read starts on
  std::vector<std::string> header_;
  std::unordered_map<std::string, std::size_t> index_;
  std::vector<std::string> row_;
};

}  // namespace agentsim::core
