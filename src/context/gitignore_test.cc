#include "src/context/gitignore.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(GlobMatchTest, StarAndQuestionStopAtSlashes) {
  EXPECT_TRUE(GlobMatch("*.o", "main.o"));
  EXPECT_FALSE(GlobMatch("*.o", "src/main.o"));
  EXPECT_TRUE(GlobMatch("a?c", "abc"));
  EXPECT_FALSE(GlobMatch("a?c", "a/c"));
  EXPECT_TRUE(GlobMatch("doc/*.txt", "doc/a.txt"));
  EXPECT_FALSE(GlobMatch("doc/*.txt", "doc/x/a.txt"));
}

TEST(GlobMatchTest, Classes) {
  EXPECT_TRUE(GlobMatch("file[0-9].txt", "file7.txt"));
  EXPECT_FALSE(GlobMatch("file[0-9].txt", "filex.txt"));
  EXPECT_TRUE(GlobMatch("file[!0-9].txt", "filex.txt"));
  EXPECT_TRUE(GlobMatch("file[^0-9].txt", "filex.txt"));
  EXPECT_TRUE(GlobMatch("[]]", "]"));
  EXPECT_TRUE(GlobMatch("x[abc", "x[abc"));  // no closing bracket: literal
}

TEST(GlobMatchTest, DoubleStarSegments) {
  EXPECT_TRUE(GlobMatch("**/foo", "foo"));
  EXPECT_TRUE(GlobMatch("**/foo", "a/b/foo"));
  EXPECT_TRUE(GlobMatch("abc/**", "abc/x/y"));
  EXPECT_FALSE(GlobMatch("abc/**", "abc"));
  EXPECT_TRUE(GlobMatch("a/**/b", "a/b"));
  EXPECT_TRUE(GlobMatch("a/**/b", "a/x/y/b"));
  EXPECT_FALSE(GlobMatch("a/**/b", "a/x/y/c"));
  EXPECT_TRUE(GlobMatch("a**b", "axxb"));  // not a whole segment: a plain star
  EXPECT_FALSE(GlobMatch("a**b", "ax/xb"));
}

TEST(GlobMatchTest, BackslashEscapes) {
  EXPECT_TRUE(GlobMatch("\\*.txt", "*.txt"));
  EXPECT_FALSE(GlobMatch("\\*.txt", "a.txt"));
}

TEST(GitignoreFileTest, CommentsBlanksAndTrailingSpaces) {
  const auto rules = GitignoreFile::Parse("# comment\n\n*.log   \n\\#hash\nspace\\ \n");
  EXPECT_EQ(rules.Check("x.log", false), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("#hash", false), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("space ", false), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("# comment", false), IgnoreMatch::kNone);
}

TEST(GitignoreFileTest, UnanchoredPatternsMatchAtAnyDepth) {
  const auto rules = GitignoreFile::Parse("build\n");
  EXPECT_EQ(rules.Check("build", true), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("src/build", true), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("src/build.cc", false), IgnoreMatch::kNone);
}

TEST(GitignoreFileTest, AnchoredPatternsMatchFromTheirDirectory) {
  const auto rules = GitignoreFile::Parse("/out\ndoc/gen\n");
  EXPECT_EQ(rules.Check("out", true), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("src/out", true), IgnoreMatch::kNone);
  EXPECT_EQ(rules.Check("doc/gen", true), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("x/doc/gen", true), IgnoreMatch::kNone);
}

TEST(GitignoreFileTest, TrailingSlashMatchesDirectoriesOnly) {
  const auto rules = GitignoreFile::Parse("cache/\n");
  EXPECT_EQ(rules.Check("cache", true), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("cache", false), IgnoreMatch::kNone);
}

TEST(GitignoreFileTest, LastMatchWinsAndNegationKeeps) {
  const auto rules = GitignoreFile::Parse("*.txt\n!keep.txt\n\\!bang\n");
  EXPECT_EQ(rules.Check("a.txt", false), IgnoreMatch::kIgnored);
  EXPECT_EQ(rules.Check("keep.txt", false), IgnoreMatch::kKept);
  EXPECT_EQ(rules.Check("!bang", false), IgnoreMatch::kIgnored);
  const auto again = GitignoreFile::Parse("!keep.txt\n*.txt\n");
  EXPECT_EQ(again.Check("keep.txt", false), IgnoreMatch::kIgnored);
}

TEST(GitignoreStackTest, DeeperFilesDecideFirst) {
  GitignoreStack stack;
  stack.Push("", GitignoreFile::Parse("*.gen\n"));
  const size_t depth = stack.size();
  stack.Push("tools", GitignoreFile::Parse("!keep.gen\n/local\n"));
  EXPECT_TRUE(stack.Ignored("a.gen", false));
  EXPECT_TRUE(stack.Ignored("tools/x.gen", false));
  EXPECT_FALSE(stack.Ignored("tools/keep.gen", false));
  EXPECT_TRUE(stack.Ignored("tools/local", true));
  EXPECT_FALSE(stack.Ignored("local", true));            // anchored to tools/
  EXPECT_TRUE(stack.Ignored("toolsx/keep.gen", false));  // not under tools/
  stack.Truncate(depth);
  EXPECT_TRUE(stack.Ignored("tools/keep.gen", false));
}

}  // namespace
}  // namespace engram
