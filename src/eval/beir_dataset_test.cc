#include "src/eval/beir_dataset.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "tests/test_util.h"

namespace engram {
namespace {

using ::testing::HasSubstr;

constexpr char kQrels[] = "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t2\n";

class BeirDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override { std::filesystem::create_directories(dir_ / "qrels"); }

  void Write(const std::string& name, const std::string& text) {
    engram::testing::WriteFile((dir_ / name).string(), text);
  }

  // A valid dataset; tests overwrite one file to break it.
  void WriteValid() {
    Write(
        "corpus.jsonl",
        R"({"_id": "d1", "title": "Title one", "text": "first doc"})"
        "\n"
        R"({"_id": "d2", "title": "", "text": "second", "metadata": {"scope": "conv-1", "created_at": "2023-05-08T13:56:00Z", "tags": ["a", "b"]}})"
        "\n\n");
    Write(
        "queries.jsonl",
        R"({"_id": "q1", "text": "what is first"})"
        "\n"
        R"({"_id": "q2", "text": "second?", "metadata": {"scope": "conv-1", "tags": ["temporal"]}})"
        "\n");
    Write("qrels/test.tsv", kQrels);
  }

  engram::testing::TempDir temp_;
  const std::filesystem::path dir_ = temp_.path() / "tiny";
};

TEST_F(BeirDatasetTest, LoadsCorpusQueriesQrelsAndMetadata) {
  WriteValid();
  Result<BeirDataset> dataset = LoadBeirDataset(dir_);
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
  EXPECT_EQ(dataset->name, "tiny");

  ASSERT_EQ(dataset->corpus.size(), 2u);
  const CorpusDoc& d1 = dataset->corpus[0];
  EXPECT_EQ(d1.id, "d1");
  EXPECT_EQ(d1.title, "Title one");
  EXPECT_EQ(d1.text, "first doc");
  EXPECT_EQ(d1.scope, "default");
  EXPECT_FALSE(d1.created_at.has_value());
  EXPECT_TRUE(d1.tags.empty());
  const CorpusDoc& d2 = dataset->corpus[1];
  EXPECT_EQ(d2.scope, "conv-1");
  ASSERT_TRUE(d2.created_at.has_value());
  EXPECT_EQ(*d2.created_at, 1683554160000);  // 2023-05-08T13:56:00Z
  EXPECT_EQ(d2.tags, (std::vector<std::string>{"a", "b"}));

  ASSERT_EQ(dataset->queries.size(), 2u);
  EXPECT_EQ(dataset->queries[0].id, "q1");
  EXPECT_EQ(dataset->queries[0].text, "what is first");
  EXPECT_EQ(dataset->queries[0].scope, "default");
  EXPECT_EQ(dataset->queries[1].scope, "conv-1");
  EXPECT_EQ(dataset->queries[1].tags, (std::vector<std::string>{"temporal"}));

  EXPECT_EQ(dataset->qrels.size(), 2u);
  EXPECT_EQ(dataset->qrels.at("q2").at("d2"), 2);
  EXPECT_EQ(dataset->num_dropped_qrels_queries, 0);
}

TEST_F(BeirDatasetTest, DropsJudgmentsOfUnknownQueries) {
  WriteValid();
  Write("qrels/test.tsv", std::string(kQrels) + "q9\td1\t1\nq8\td2\t1\n");
  Result<BeirDataset> dataset = LoadBeirDataset(dir_);
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
  EXPECT_EQ(dataset->qrels.size(), 2u);
  EXPECT_EQ(dataset->qrels.count("q9"), 0u);
  EXPECT_EQ(dataset->num_dropped_qrels_queries, 2);
}

TEST_F(BeirDatasetTest, NameIgnoresTrailingSlash) {
  WriteValid();
  Result<BeirDataset> dataset = LoadBeirDataset(dir_.string() + "/");
  ASSERT_TRUE(dataset.ok()) << dataset.status().ToString();
  EXPECT_EQ(dataset->name, "tiny");
}

TEST_F(BeirDatasetTest, ReadsTheRequestedQrelsSplit) {
  WriteValid();
  Write("qrels/dev.tsv", "query-id\tcorpus-id\tscore\nq1\td2\t1\n");
  BeirLoadOptions options;
  options.qrels_split = "dev";
  Result<BeirDataset> dataset = LoadBeirDataset(dir_, options);
  ASSERT_TRUE(dataset.ok());
  EXPECT_EQ(dataset->qrels.at("q1").count("d2"), 1u);
}

TEST_F(BeirDatasetTest, MalformedJsonNamesFileAndLine) {
  WriteValid();
  Write("corpus.jsonl", R"({"_id": "d1", "text": "ok"})"
                        "\n"
                        R"({"_id": "d2", "text": "unterminated)"
                        "\n");
  Result<BeirDataset> dataset = LoadBeirDataset(dir_);
  ASSERT_FALSE(dataset.ok());
  EXPECT_EQ(dataset.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(
      dataset.status().message(),
      HasSubstr("eval: load corpus: " + (dir_ / "corpus.jsonl").string() + ":2: malformed JSON"));
}

TEST_F(BeirDatasetTest, MissingIdNamesFileAndLine) {
  WriteValid();
  Write("queries.jsonl", R"({"_id": "q1", "text": "a"})"
                         "\n\n"
                         R"({"text": "no id"})"
                         "\n");
  Result<BeirDataset> dataset = LoadBeirDataset(dir_);
  ASSERT_FALSE(dataset.ok());
  EXPECT_EQ(dataset.status().message(),
            "eval: load queries: " + (dir_ / "queries.jsonl").string() + ":3: missing \"_id\"");
}

TEST(ParseBeirCorpusTest, RejectsBadRows) {
  struct Case {
    const char* row;
    const char* error;
  };
  const Case cases[] = {
      {R"(["not", "an", "object"])", "c.jsonl:1: want a JSON object, got array"},
      {R"({"_id": "d", "title": "t"})", "c.jsonl:1: missing \"text\""},
      {R"({"_id": "", "text": "t"})", "c.jsonl:1: empty \"_id\""},
      {R"({"_id": 1.5, "text": "t"})", "\"_id\" must be a string, not number"},
      {R"({"_id": "d", "text": 3})", "\"text\" must be a string, not number"},
      {R"({"_id": "d", "text": "t", "metadata": []})", "\"metadata\" must be an object, not array"},
      {R"({"_id": "d", "text": "t", "metadata": {"tags": "x"}})",
       "\"metadata.tags\" must be an array of strings, not string"},
      {R"({"_id": "d", "text": "t", "metadata": {"tags": [1]}})",
       "\"metadata.tags[]\" must be a string, not number"},
      {R"({"_id": "d", "text": "t", "metadata": {"scope": ""}})", "empty \"metadata.scope\""},
      {R"({"_id": "d", "text": "t", "metadata": {"created_at": "May 8"}})",
       "c.jsonl:1: \"metadata.created_at\": "},
      {R"({"_id": "d", "text": "t", "metadata": {"created_at": 17}})",
       "\"metadata.created_at\" must be an ISO-8601 string, not number"},
  };
  for (const Case& c : cases) {
    Result<std::vector<CorpusDoc>> corpus = ParseBeirCorpus(c.row, "c.jsonl");
    ASSERT_FALSE(corpus.ok()) << c.row;
    EXPECT_EQ(corpus.status().code(), StatusCode::kInvalidArgument);
    EXPECT_THAT(corpus.status().message(), HasSubstr(c.error)) << c.row;
  }
}

TEST(ParseBeirCorpusTest, RejectsRepeatedId) {
  Result<std::vector<CorpusDoc>> corpus = ParseBeirCorpus(
      "{\"_id\": \"d\", \"text\": \"a\"}\n{\"_id\": \"d\", \"text\": \"b\"}\n", "c.jsonl");
  ASSERT_FALSE(corpus.ok());
  EXPECT_EQ(corpus.status().message(),
            "eval: load corpus: c.jsonl:2: \"_id\" \"d\" repeats an earlier "
            "row");
}

TEST(ParseBeirCorpusTest, AcceptsIntegerIdNullsAndUnknownFields) {
  Result<std::vector<CorpusDoc>> corpus = ParseBeirCorpus(
      R"({"_id": 42, "title": null, "text": "t", "extra": {"x": 1}, "metadata": {"scope": null, "tags": null, "created_at": null, "other": 3}})"
      "\r\n",
      "c.jsonl");
  ASSERT_TRUE(corpus.ok()) << corpus.status().ToString();
  ASSERT_EQ(corpus->size(), 1u);
  EXPECT_EQ((*corpus)[0].id, "42");
  EXPECT_EQ((*corpus)[0].title, "");
  EXPECT_EQ((*corpus)[0].scope, "default");
  EXPECT_FALSE((*corpus)[0].created_at.has_value());
}

TEST(ParseBeirQueriesTest, IgnoresCreatedAtOnQueries) {
  Result<std::vector<EvalQuery>> queries = ParseBeirQueries(
      R"({"_id": "q", "text": "t", "metadata": {"created_at": "not a time"}})", "q.jsonl");
  ASSERT_TRUE(queries.ok()) << queries.status().ToString();
  EXPECT_EQ((*queries)[0].id, "q");
}

TEST_F(BeirDatasetTest, MissingFileIsIOError) {
  WriteValid();
  std::filesystem::remove(dir_ / "qrels" / "test.tsv");
  Result<BeirDataset> dataset = LoadBeirDataset(dir_);
  ASSERT_FALSE(dataset.ok());
  EXPECT_EQ(dataset.status().code(), StatusCode::kIOError);
  EXPECT_THAT(dataset.status().message(), HasSubstr("test.tsv"));
}

}  // namespace
}  // namespace engram
