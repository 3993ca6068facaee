#include "src/server/request_args.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

using nlohmann::json;

TEST(RequestArgsTest, ReadsTypedFieldsWithDefaults) {
  auto args = RequestArgs::Of(json{{"q", "hello"}, {"k", 5}, {"x", true}, {"s", {"a", "b"}}}, "t");
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(*args->RequiredString("q", 10), "hello");
  EXPECT_EQ(*args->Int("k", 1, 10, 3), 5);
  EXPECT_EQ(*args->Int("missing", 1, 10, 3), 3);
  EXPECT_TRUE(*args->Bool("x", false));
  EXPECT_EQ(*args->Strings("s", 5, 5), (std::vector<std::string>{"a", "b"}));
  EXPECT_TRUE(args->OnlyFields({"q", "k", "x", "s"}).ok());
}

TEST(RequestArgsTest, ErrorsNameTheRequestAndTheField) {
  auto args = RequestArgs::Of(json{{"q", "hello world"}, {"k", 2.5}, {"n", nullptr}}, "search");
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(args->RequiredString("q", 5).status().message(),
            "search: field 'q': is 11 bytes; the limit is 5");
  EXPECT_EQ(args->Int("k", 1, 10, 3).status().message(),
            "search: field 'k': must be an integer in 1..10, not 2.5");
  EXPECT_EQ(args->RequiredString("n", 5).status().message(), "search: field 'n': is required");
  EXPECT_EQ(args->OnlyFields({"q", "k"}).message(), "search: unknown field 'n' (known: q, k)");
  EXPECT_EQ(args->Strings("q", 100, 0).status().message(),
            "search: field 'q': has 1 items; the limit is 0");
  EXPECT_FALSE(RequestArgs::Of(json::array(), "x").ok());
}

TEST(RequestArgsTest, QueryValuesMayBeTextButMustParse) {
  const RequestArgs args =
      RequestArgs::FromQuery(json{{"limit", "20"}, {"bad", "2x"}, {"on", "true"}}, "list");
  EXPECT_EQ(*args.Int("limit", 1, 100, 5), 20);
  EXPECT_FALSE(args.Int("bad", 1, 100, 5).ok());
  EXPECT_TRUE(*args.Bool("on", false));
  // From a JSON body, text is not a number.
  auto body = RequestArgs::Of(json{{"limit", "20"}}, "list");
  EXPECT_FALSE(body->Int("limit", 1, 100, 5).ok());
}

}  // namespace
}  // namespace engram
