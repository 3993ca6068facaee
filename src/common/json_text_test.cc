#include "src/common/json_text.h"

#include <string>

#include <gtest/gtest.h>

namespace engram {
namespace {

using nlohmann::json;

std::string ErrorOf(std::string_view text, const JsonLimits& limits = {}) {
  auto r = ParseJson(text, "input", limits);
  return r.ok() ? std::string("(parsed)") : r.status().message();
}

TEST(ParseJsonTest, ReadsOrdinaryValues) {
  auto r = ParseJson(
      R"( {"a": [1, -2, 3.5, "x\u00e9", true, null], "b": {"c": {}}, "u": 18446744073709551615} )",
      "input");
  ASSERT_TRUE(r.ok()) << r.status().message();
  const json& j = *r;
  EXPECT_EQ(j["a"][0], 1);
  EXPECT_EQ(j["a"][1], -2);
  EXPECT_EQ(j["a"][2], 3.5);
  EXPECT_EQ(j["a"][3], "x\xc3\xa9");
  EXPECT_EQ(j["a"][4], true);
  EXPECT_TRUE(j["a"][5].is_null());
  EXPECT_TRUE(j["b"]["c"].is_object());
  EXPECT_EQ(j["u"].get<uint64_t>(), 18446744073709551615ULL);
  EXPECT_EQ(*ParseJson("1.5e308", "input"), json(1.5e308));
  EXPECT_EQ(*ParseJson("-9223372036854775808", "input"), json(INT64_MIN));
  EXPECT_EQ(DumpJson(j), j.dump());
}

TEST(ParseJsonTest, ANumberBeyondADoubleIsRefusedWithItsPosition) {
  EXPECT_EQ(ErrorOf("1e999"), "input: number out of range at byte 5");
  EXPECT_EQ(ErrorOf(R"({"jsonrpc":"2.0","id":2,"method":"ping","params":{"x":1e999}})"),
            "input: number out of range at byte 59");
  EXPECT_EQ(ErrorOf("[-1e400]"), "input: number out of range at byte 7");
}

TEST(ParseJsonTest, AnIntegerBeyond64BitsIsRefusedWithItsPath) {
  EXPECT_EQ(ErrorOf(R"({"a": [0, 99999999999999999999]})"),
            "input: integer 99999999999999999999 is outside the 64-bit range at $.a[1]");
  EXPECT_EQ(ErrorOf("-9223372036854775809"),
            "input: integer -9223372036854775809 is outside the 64-bit range at $");
}

TEST(ParseJsonTest, NestingIsBoundedBeforeItIsBuilt) {
  const auto nested = [](size_t depth) {
    return std::string(depth, '[') + std::string(depth, ']');
  };
  EXPECT_TRUE(ParseJson(nested(64), "input").ok());
  EXPECT_EQ(ErrorOf(nested(65)).substr(0, 42), "input: nesting deeper than 64 levels at $[");
  EXPECT_TRUE(ParseJson(nested(3), "input", JsonLimits{3}).ok());
  EXPECT_FALSE(ParseJson(nested(4), "input", JsonLimits{3}).ok());
  // Deep enough to exhaust the stack of a recursive reader or dump.
  std::string deep;
  for (int i = 0; i < 50000; ++i) deep += "{\"a\":";
  deep += "1" + std::string(50000, '}');
  EXPECT_EQ(ErrorOf(deep).substr(0, 38), "input: nesting deeper than 64 levels a");
}

TEST(ParseJsonTest, ARepeatedKeyIsRefusedNotOverwritten) {
  EXPECT_EQ(ErrorOf(R"({"a": 1, "a": 2})"), "input: key \"a\" appears twice at $.a");
  EXPECT_EQ(ErrorOf(R"({"m": [{"k": 1}, {"k": 1, "k": 1}]})"),
            "input: key \"k\" appears twice at $.m[1].k");
  // The same key in different objects is fine.
  EXPECT_TRUE(ParseJson(R"({"a": {"a": {"a": 1}}})", "input").ok());
}

TEST(ParseJsonTest, MalformedTextAndBadUtf8AreRefusedAtTheirByte) {
  EXPECT_EQ(ErrorOf("{\"a\": \"\xff\"}"), "input: malformed JSON at byte 8");
  EXPECT_EQ(ErrorOf("{} x"), "input: malformed JSON at byte 4");
  EXPECT_EQ(ErrorOf(""), "input: malformed JSON at byte 1");
  EXPECT_EQ(ErrorOf("{\"a\":"), "input: malformed JSON at byte 6") << "one past the end";
}

TEST(DumpJsonTest, InvalidUtf8InAStringComesOutReplaced) {
  const json j = std::string(
      "a\xff"
      "b");
  EXPECT_EQ(DumpJson(j),
            "\"a\xef\xbf\xbd"
            "b\"");
}

}  // namespace
}  // namespace engram
