#include "sim/core/csv_reader.hpp"

#include <gtest/gtest.h>

#include <sstream>

namespace agentsim::core {
namespace {

TEST(CsvReader, ReadsFieldsByHeaderName) {
  std::istringstream in("a,b,c\n1,\"x,y\",2.5\n\n3,\"say \"\"hi\"\"\",\n");
  CsvReader csv(in, "t.csv");
  const auto a = csv.column("a"), b = csv.column("b"), c = csv.column("c");
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.integer(a), 1);
  EXPECT_EQ(csv.field(b), "x,y");
  EXPECT_DOUBLE_EQ(csv.number(c), 2.5);
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.line(), 4) << "the blank line counts";
  EXPECT_EQ(csv.field(b), "say \"hi\"");
  EXPECT_DOUBLE_EQ(csv.number_or(c, -1), -1);
  EXPECT_FALSE(csv.next());
}

// Spreadsheets save UTF-8 CSV with a byte-order mark; it read as part of the first column's name
// ("trace_id: missing column in the header").
TEST(CsvReader, SkipsAUtf8ByteOrderMark) {
  std::istringstream in("\xEF\xBB\xBFid,v\r\n7,8\r\n");
  CsvReader csv(in, "t.csv");
  EXPECT_EQ(csv.header().front(), "id");
  ASSERT_TRUE(csv.next());
  EXPECT_EQ(csv.integer(csv.column("id")), 7);
  // A first column whose name starts with the same lead byte but is not a BOM keeps it.
  std::istringstream other("\xEF\xBC\x81x,v\n1,2\n");
  CsvReader kept(other, "u.csv");
  EXPECT_EQ(kept.header().front(), "\xEF\xBC\x81x");
}

TEST(CsvReader, ErrorsNameFileLineAndColumn) {
  std::istringstream in("a,b\n1,2\n3,oops\n");
  CsvReader csv(in, "t.csv");
  const auto b = csv.column("b");
  ASSERT_TRUE(csv.next());
  ASSERT_TRUE(csv.next());
  try {
    csv.integer(b);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "t.csv:3: b: expected an integer, found 'oops'");
  }
}

TEST(CsvReader, WrongFieldCountAndMissingColumn) {
  std::istringstream in("a,b\n1,2,3\n");
  CsvReader csv(in, "t.csv");
  EXPECT_THROW(csv.column("zzz"), Error);
  try {
    csv.next();
    FAIL();
  } catch (const Error& e) {
    EXPECT_STREQ(e.what(), "t.csv:2: expected 2 fields as in the header, found 3");
  }
}

}  // namespace
}  // namespace agentsim::core
