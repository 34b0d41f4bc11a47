#pragma once
// The one writer of every CSV the project writes (RFC 4180): a header row, fields holding a
// comma, quote, CR or LF quoted with quotes doubled, CRLF-free "\n" records, an empty cell for a
// missing (NaN) number, and locale-independent numbers ('.' decimal separator, 10 significant digits).
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace agentsim::core {

class CsvWriter {
 public:
  explicit CsvWriter(const std::vector<std::string_view>& header);

  CsvWriter& text(std::string_view s);  // quoted when it must be
  CsvWriter& number(double v);          // NaN and infinities → empty cell
  CsvWriter& integer(long long v);
  CsvWriter& unsigned_integer(std::uint64_t v);
  CsvWriter& boolean(bool v);           // "true" / "false"
  // Ends the current row; throws core::Error if its cell count differs from the header's.
  void end_row();

  const std::string& str() const { return out_; }

 private:
  void separator();
  std::string out_;
  std::size_t columns_ = 0;
  std::size_t cells_ = 0;
};

// One field as RFC 4180 writes it (the quoting rule of CsvWriter::text).
std::string csv_field(std::string_view s);
// A number as CsvWriter writes it: shortest of %.10g in the C locale; "" for NaN/inf.
std::string csv_number(double v);

}  // namespace agentsim::core
