// The `--batch` text of `agentsim explain`: what it builds and what a bad field says.
#include <gtest/gtest.h>

#include <string>

#include "sim/core/error.hpp"
#include "sim/serving/batch_text.hpp"

namespace agentsim::serving {
namespace {

std::string error_of(const std::string& text) {
  try {
    parse_step_batch(text);
  } catch (const core::Error& e) {
    return e.what();
  }
  return "";
}

TEST(BatchText, BuildsDecodesAndPrefillChunks) {
  const StepBatch b = parse_step_batch("decode=3@4096,prefill=2x512@128");
  ASSERT_EQ(b.decodes.size(), 3u);
  EXPECT_EQ(b.decodes[2].context_tokens, 4096);
  ASSERT_EQ(b.prefills.size(), 2u);
  EXPECT_EQ(b.prefills[1].tokens, 512);
  EXPECT_EQ(b.prefills[1].cached_tokens, 128);
}

TEST(BatchText, ABadFieldIsNamedWithItsValue) {
  // A negative context used to read "has a bad count".
  EXPECT_NE(error_of("decode=1@-5").find("'decode=1@-5' has a bad context '-5'"), std::string::npos)
      << error_of("decode=1@-5");
  EXPECT_NE(error_of("decode=x@5").find("has a bad sequence count 'x'"), std::string::npos);
  EXPECT_NE(error_of("prefill=1x1e3@0").find("has a bad token count '1e3'"), std::string::npos);
  EXPECT_NE(error_of("prefill=1x8@-1").find("has a bad cached-token count '-1'"), std::string::npos);
  EXPECT_NE(error_of("prefill=z8@0").find("not prefill=NxTOKENS@CACHED"), std::string::npos);
}

}  // namespace
}  // namespace agentsim::serving
