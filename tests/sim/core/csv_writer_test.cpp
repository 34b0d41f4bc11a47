// The CSV writer against RFC 4180 by hand: quoting, doubled quotes, line breaks inside a field,
// missing numbers as empty cells, numbers as %.10g, and a row of the wrong width refused.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "sim/core/csv_writer.hpp"
#include "sim/core/error.hpp"

namespace agentsim::core {
namespace {

TEST(CsvWriter, QuotesOnlyWhatMustBeQuoted) {
  EXPECT_EQ(csv_field("tp=8"), "tp=8");
  EXPECT_EQ(csv_field("tp=1,ep=1"), "\"tp=1,ep=1\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a\nb"), "\"a\nb\"");
  EXPECT_EQ(csv_field("a\rb"), "\"a\rb\"");
  EXPECT_EQ(csv_field(""), "");
}

TEST(CsvWriter, NumbersAreTenSignificantDigitsAndMissingIsEmpty) {
  EXPECT_EQ(csv_number(0.1), "0.1");
  EXPECT_EQ(csv_number(1234567.891234), "1234567.891");
  EXPECT_EQ(csv_number(1e-7), "1e-07");
  EXPECT_EQ(csv_number(2.5e12), "2.5e+12");
  EXPECT_EQ(csv_number(-3), "-3");
  EXPECT_EQ(csv_number(std::numeric_limits<double>::quiet_NaN()), "");
  EXPECT_EQ(csv_number(std::numeric_limits<double>::infinity()), "");
}

TEST(CsvWriter, RowsMatchTheHeader) {
  CsvWriter w({"a", "b,c", "d"});
  w.text("x,y").number(std::nan("")).boolean(true);
  w.end_row();
  w.integer(-5).unsigned_integer(18446744073709551615ull).text("");
  w.end_row();
  EXPECT_EQ(w.str(), "a,\"b,c\",d\n\"x,y\",,true\n-5,18446744073709551615,\n");
  w.text("only one");
  EXPECT_THROW(w.end_row(), Error);
}

}  // namespace
}  // namespace agentsim::core
