#include "src/store/fact_codec.h"

#include <gtest/gtest.h>

#include <sstream>

namespace engram {
namespace {

TEST(FactCodecTest, JsonLineCarriesEveryField) {
  Fact f;
  f.id = "0123456789abcdef01234567";
  f.scope = "work";
  f.content = "Deploys happen on Thursdays — às quintas";
  f.tags = {"deploy", "process"};
  f.kind = "lesson";
  f.source = "retro 2026-03";
  f.created_at = 1683554160123;
  f.updated_at = 1683554160999;
  f.last_accessed = 1700000000000;
  f.access_count = 7;
  f.confidence = 0.8125;
  f.metadata = R"({"n":1.5,"who":"ana"})";
  auto parsed = ParseFactJson(FactToJsonLine(f));
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(parsed->content, f.content);
  EXPECT_EQ(*parsed->id, f.id);
  EXPECT_EQ(parsed->scope, f.scope);
  EXPECT_EQ(parsed->tags, f.tags);
  EXPECT_EQ(parsed->kind, f.kind);
  EXPECT_EQ(parsed->source, f.source);
  EXPECT_EQ(*parsed->created_at, f.created_at);
  EXPECT_EQ(*parsed->updated_at, f.updated_at);
  EXPECT_EQ(*parsed->last_accessed, f.last_accessed);
  EXPECT_EQ(*parsed->access_count, f.access_count);
  EXPECT_EQ(parsed->confidence, f.confidence);
  EXPECT_EQ(parsed->metadata, f.metadata);
}

TEST(FactCodecTest, RejectsBadShapesNamingTheField) {
  const auto message = [](const std::string& json) {
    auto r = ParseFactJson(json);
    EXPECT_FALSE(r.ok()) << json;
    return r.status().message();
  };
  EXPECT_EQ(message(R"({"content": "x")"), "malformed JSON at byte 16");
  EXPECT_EQ(message("[1,2]"), "expected a JSON object, got array");
  EXPECT_EQ(message(R"({"tags": ["a"]})"), "missing field 'content'");
  EXPECT_EQ(message(R"({"content": "x", "tags": 5})"),
            "field 'tags' must be an array of strings, not number");
  EXPECT_EQ(message(R"({"content": 12})"), "field 'content' must be a string, not number");
  EXPECT_EQ(message(R"({"content": "x", "colour": "red"})"), "unknown field 'colour'");
  EXPECT_EQ(message(R"({"content": "x", "metadata": "no"})"),
            "field 'metadata' must be an object, not string");
  EXPECT_NE(message(R"({"content": "x", "created_at": "soon"})").find("created_at"),
            std::string::npos);
  EXPECT_EQ(message("{\"content\": \"caf\xe9\"}"), "invalid UTF-8 at byte 17");
}

TEST(FactCodecTest, JsonlReaderNumbersLinesAndSkipsBlankOnes) {
  std::istringstream in("{\"content\":\"a\"}\n\n{bad\n{\"text\":\"b\"}\r\n");
  std::vector<ParsedRecord> records;
  ReadFactsJsonl(in, [&](ParsedRecord r) { records.push_back(std::move(r)); });
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records[0].line, 1u);
  EXPECT_TRUE(records[0].fact.ok());
  EXPECT_EQ(records[1].line, 3u);
  EXPECT_FALSE(records[1].fact.ok());
  EXPECT_EQ(records[2].line, 4u);
  EXPECT_EQ(records[2].fact->content, "b");
}

TEST(FactCodecTest, CsvHandlesQuotesNewlinesAndTags) {
  std::istringstream in(
      "content,tags,kind,confidence\n"
      "\"Use \"\"make\"\" to build, always\",build;tools,lesson,0.5\n"
      "\"two\nlines\",,fact,\n"
      "short,row\n");
  std::vector<ParsedRecord> records;
  ReadFactsCsv(in, [&](ParsedRecord r) { records.push_back(std::move(r)); });
  ASSERT_EQ(records.size(), 3u);
  ASSERT_TRUE(records[0].fact.ok()) << records[0].fact.status().ToString();
  EXPECT_EQ(records[0].fact->content, "Use \"make\" to build, always");
  EXPECT_EQ(records[0].fact->tags, (std::vector<std::string>{"build", "tools"}));
  EXPECT_EQ(records[0].fact->confidence, 0.5);
  ASSERT_TRUE(records[1].fact.ok());
  EXPECT_EQ(records[1].line, 3u);
  EXPECT_EQ(records[1].fact->content, "two\nlines");
  EXPECT_EQ(records[2].line, 5u);
  EXPECT_FALSE(records[2].fact.ok());
  EXPECT_NE(records[2].fact.status().message().find("expected 4 fields"), std::string::npos);
}

TEST(FactCodecTest, CsvWithoutContentColumnIsAnError) {
  std::istringstream in("title,tags\nx,y\n");
  std::vector<ParsedRecord> records;
  ReadFactsCsv(in, [&](ParsedRecord r) { records.push_back(std::move(r)); });
  ASSERT_EQ(records.size(), 1u);
  EXPECT_FALSE(records[0].fact.ok());
}

}  // namespace
}  // namespace engram
