#include "src/eval/qrels.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

namespace engram {
namespace {

using ::testing::HasSubstr;

TEST(ParseTrecQrelsTest, ReadsQidIterDocnoRel) {
  Result<Qrels> qrels =
      ParseTrecQrels("301 0 d1 1\n301 0 d2 0\n302\t0\td1\t-1\n\n303 1  d9  4\n", "q.txt");
  ASSERT_TRUE(qrels.ok()) << qrels.status().ToString();
  ASSERT_EQ(qrels->size(), 3u);
  EXPECT_EQ(qrels->at("301"), (Judgments{{"d1", 1}, {"d2", 0}}));
  EXPECT_EQ(qrels->at("302"), (Judgments{{"d1", -1}}));
  EXPECT_EQ(qrels->at("303"), (Judgments{{"d9", 4}}));
}

TEST(ParseTrecQrelsTest, ErrorsNameFileAndLine) {
  Result<Qrels> fields = ParseTrecQrels("301 0 d1 1\n301 0 d2\n", "q.txt");
  ASSERT_FALSE(fields.ok());
  EXPECT_EQ(fields.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(fields.status().message(),
            "eval: load trec qrels: q.txt:2: want 4 fields \"qid iter docno "
            "rel\", got 3");

  Result<Qrels> grade = ParseTrecQrels("301 0 d1 x\n", "q.txt");
  ASSERT_FALSE(grade.ok());
  EXPECT_THAT(grade.status().message(), HasSubstr("q.txt:1: relevance \"x\""));

  Result<Qrels> twice = ParseTrecQrels("301 0 d1 1\n\n301 0 d1 0\n", "q.txt");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(),
              HasSubstr("q.txt:3: doc \"d1\" judged twice for query \"301\""));
}

TEST(ParseBeirQrelsTest, SkipsHeaderAndReadsTabSeparatedRows) {
  Result<Qrels> qrels = ParseBeirQrels(
      "query-id\tcorpus-id\tscore\r\nq1\tdoc "
      "1\t2\r\nq1\td2\t0\r\nq2\td1\t1\r\n",
      "test.tsv");
  ASSERT_TRUE(qrels.ok()) << qrels.status().ToString();
  EXPECT_EQ(qrels->at("q1"), (Judgments{{"doc 1", 2}, {"d2", 0}}));
  EXPECT_EQ(qrels->at("q2"), (Judgments{{"d1", 1}}));
}

TEST(ParseBeirQrelsTest, LoadsWithoutHeader) {
  Result<Qrels> qrels = ParseBeirQrels("q1\td1\t1\n", "test.tsv");
  ASSERT_TRUE(qrels.ok());
  EXPECT_EQ(qrels->at("q1"), (Judgments{{"d1", 1}}));
}

TEST(ParseBeirQrelsTest, ErrorsNameFileAndLine) {
  Result<Qrels> score =
      ParseBeirQrels("query-id\tcorpus-id\tscore\nq1\td1\t1\nq1\td2\thigh\n", "test.tsv");
  ASSERT_FALSE(score.ok());
  EXPECT_EQ(score.status().message(),
            "eval: load beir qrels: test.tsv:3: score \"high\" is not an "
            "integer");

  Result<Qrels> fields = ParseBeirQrels("q1 d1 1\n", "test.tsv");
  ASSERT_FALSE(fields.ok());
  EXPECT_THAT(fields.status().message(), HasSubstr("test.tsv:1: want 3"));

  Result<Qrels> twice = ParseBeirQrels("q1\td1\t1\nq1\td1\t1\n", "test.tsv");
  ASSERT_FALSE(twice.ok());
  EXPECT_THAT(twice.status().message(), HasSubstr("test.tsv:2: doc \"d1\""));
}

TEST(LoadQrelsTest, MissingFileIsIOError) {
  Result<Qrels> qrels = LoadBeirQrels("/nonexistent/engram/test.tsv");
  ASSERT_FALSE(qrels.ok());
  EXPECT_EQ(qrels.status().code(), StatusCode::kIOError);
  EXPECT_THAT(qrels.status().message(), HasSubstr("eval: load beir qrels: cannot read "
                                                  "/nonexistent/engram/test.tsv"));
}

TEST(CountRelevantTest, CountsGradesAtOrAboveLevel) {
  const Judgments judgments = {{"a", 2}, {"b", 1}, {"c", 0}, {"d", -1}};
  EXPECT_EQ(CountRelevant(judgments), 2);
  EXPECT_EQ(CountRelevant(judgments, 2), 1);
}

}  // namespace
}  // namespace engram
