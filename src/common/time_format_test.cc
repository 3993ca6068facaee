#include "src/common/time_format.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(TimeFormatTest, FormatsEpochAndKnownDate) {
  EXPECT_EQ(FormatIso8601(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(FormatIso8601(1683554160000), "2023-05-08T13:56:00.000Z");
}

TEST(TimeFormatTest, ParsesWhatItFormats) {
  for (Timestamp t :
       {Timestamp{0}, Timestamp{1683554160123}, Timestamp{-86400001}, Timestamp{4102444800999}}) {
    auto parsed = ParseIso8601(FormatIso8601(t));
    ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
    EXPECT_EQ(*parsed, t);
  }
}

TEST(TimeFormatTest, AcceptsCommonVariants) {
  EXPECT_EQ(*ParseIso8601("2023-05-08"), 1683504000000);
  EXPECT_EQ(*ParseIso8601("2023-05-08T13:56:00Z"), 1683554160000);
  EXPECT_EQ(*ParseIso8601("2023-05-08 13:56"), 1683554160000);
  EXPECT_EQ(*ParseIso8601("2023-05-08T15:56:00+02:00"), 1683554160000);
  EXPECT_EQ(*ParseIso8601("2023-05-08T13:56:00.5Z"), 1683554160500);
}

TEST(TimeFormatTest, RejectsNonsenseWithMessage) {
  for (const char* bad :
       {"", "yesterday", "2023-13-01", "2023-02-30", "2023-05-08T25:00", "2023-05-08Tx"}) {
    auto r = ParseIso8601(bad);
    EXPECT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("time: parse"), std::string::npos);
  }
}

}  // namespace
}  // namespace engram
