#include "src/engine/fact_validator.h"

#include <gtest/gtest.h>

#include "src/store/fact_id.h"

namespace engram {
namespace {

NewFact Valid() {
  NewFact f;
  f.content = "Uses Neovim";
  return f;
}

std::string Error(const NewFact& f, const LimitOptions& limits = {}) {
  Status s = ValidateNewFact(f, limits);
  EXPECT_FALSE(s.ok());
  return s.message();
}

TEST(FactValidatorTest, AcceptsAPlainFact) { EXPECT_TRUE(ValidateNewFact(Valid(), {}).ok()); }

TEST(FactValidatorTest, RejectsEmptyAndBlankContent) {
  NewFact f = Valid();
  f.content = "";
  EXPECT_EQ(Error(f), "content: empty text");
  f.content = " \t\n ";
  EXPECT_EQ(Error(f), "content: empty text");
}

TEST(FactValidatorTest, RejectsInvalidUtf8WithPosition) {
  NewFact f = Valid();
  f.content = "abc\xff";
  EXPECT_EQ(Error(f), "content: invalid UTF-8 at byte 4");
}

TEST(FactValidatorTest, RejectsHugeContentNamingTheLimit) {
  NewFact f = Valid();
  f.content = std::string(10 << 20, 'a');
  const std::string e = Error(f);
  EXPECT_NE(e.find("10485760 bytes"), std::string::npos) << e;
  EXPECT_NE(e.find("max_content_bytes"), std::string::npos) << e;
}

TEST(FactValidatorTest, RejectsBadFields) {
  NewFact f = Valid();
  f.confidence = 1.5;
  EXPECT_NE(Error(f).find("confidence"), std::string::npos);
  f = Valid();
  f.metadata = "[1]";
  EXPECT_EQ(Error(f), "metadata: not a JSON object");
  f = Valid();
  f.scope = "";
  EXPECT_EQ(Error(f), "scope: empty text");
  f = Valid();
  f.tags = {"ok", " "};
  EXPECT_EQ(Error(f), "tag: empty text");
  f = Valid();
  f.id = "000000000000000000000000";
  EXPECT_NE(Error(f).find("does not match the content"), std::string::npos);
  f.id = FactId(f.content);
  EXPECT_TRUE(ValidateNewFact(f, {}).ok());
}

TEST(FactValidatorTest, BuildNormalisesTagsAndDefaultsTimes) {
  NewFact in = Valid();
  in.tags = {"Editor", "editor", " TOOLS "};
  in.metadata = R"({ "b": 1, "a": 2 })";
  const Fact f = BuildFact(in, 5000);
  EXPECT_EQ(f.tags, (std::vector<std::string>{"editor", "tools"}));
  EXPECT_EQ(f.metadata, R"({"a":2,"b":1})");
  EXPECT_EQ(f.created_at, 5000);
  EXPECT_EQ(f.updated_at, 5000);
  EXPECT_EQ(f.last_accessed, 5000);
  in.created_at = 1000;
  const Fact g = BuildFact(in, 5000);
  EXPECT_EQ(g.created_at, 1000);
  EXPECT_EQ(g.updated_at, 1000);
  EXPECT_EQ(g.last_accessed, 1000);
}

}  // namespace
}  // namespace engram
