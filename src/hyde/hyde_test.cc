#include "src/hyde/hyde.h"

#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "tests/test_llms.h"

namespace engram {
namespace {

using testing::TableLlm;

// A cache in a map, counting its calls.
struct MapCache {
  std::map<std::string, std::string> entries;
  int gets = 0;
  int puts = 0;
  Status put_status;
  HypothesisCache Bind() {
    HypothesisCache c;
    c.get = [this](const std::string& llm, int version,
                   const std::string& q) -> Result<std::optional<std::string>> {
      ++gets;
      auto it = entries.find(llm + "|" + std::to_string(version) + "|" + q);
      if (it == entries.end()) return std::optional<std::string>();
      return std::optional<std::string>(it->second);
    };
    c.put = [this](const std::string& llm, int version, const std::string& q,
                   const std::string& h) {
      ++puts;
      if (!put_status.ok()) return put_status;
      entries[llm + "|" + std::to_string(version) + "|" + q] = h;
      return Status::OK();
    };
    return c;
  }
};

TEST(HydeRequestTest, QueryIsTheUserMessageAndTheLimitIsKept) {
  HydeOptions options;
  options.max_tokens = 123;
  const LlmRequest r = HydeRequest("which port does postgres use", options);
  EXPECT_EQ(r.user, "which port does postgres use");
  EXPECT_EQ(r.max_tokens, 123u);
  EXPECT_EQ(r.temperature, 0.0);
  EXPECT_NE(r.system.find("2 to 4 sentences"), std::string::npos);
  EXPECT_NE(r.system.find("Portuguese"), std::string::npos);
}

TEST(HydeKeywordsTest, TakesTheHypothesisKeywordsTheQueryLacks) {
  // The hypothesis's first five keywords: postgres (3), 5432 and port (2),
  // then clients and connect (1, in byte order); "postgres" and "port" are
  // the query's already.
  const std::string hypothesis =
      "Postgres listens on port 5432. The postgres port 5432 is set in postgresql.conf; "
      "Postgres clients connect there.";
  const auto added = HydeKeywords("Which PORT does postgres use?", hypothesis, 5);
  EXPECT_EQ(added, (std::vector<std::string>{"5432", "clients", "connect"}));
  // ExtractKeywords keeps the first 5 of the hypothesis; the query's are
  // removed after that cut.
  const auto more = HydeKeywords("database", hypothesis, 20);
  EXPECT_GE(more.size(), 5u);
  EXPECT_EQ(more[0], "postgres");
  EXPECT_TRUE(HydeKeywords("x", hypothesis, 0).empty());
}

TEST(HydeSearchVectorTest, BothIsTheNormalisedMean) {
  const std::vector<float> q{1, 0, 0};
  const std::vector<float> h{0, 1, 0};
  const auto v = HydeSearchVector(q, h, HydeEmbed::kBoth).vector;
  ASSERT_EQ(v.size(), 3u);
  EXPECT_NEAR(v[0], 1 / std::sqrt(2.0), 1e-6);
  EXPECT_NEAR(v[1], 1 / std::sqrt(2.0), 1e-6);
  EXPECT_EQ(v[2], 0.0F);
  EXPECT_EQ(HydeSearchVector(q, h, HydeEmbed::kQuery).vector, q);
  EXPECT_EQ(HydeSearchVector(q, h, HydeEmbed::kHypothesis).vector, h);
}

TEST(HydeSearchVectorTest, FallsBackToWhicheverVectorExists) {
  const std::vector<float> q{1, 0};
  const std::vector<float> h{0, 1};
  EXPECT_EQ(HydeSearchVector(q, {}, HydeEmbed::kBoth).vector, q);
  EXPECT_EQ(HydeSearchVector({}, h, HydeEmbed::kBoth).vector, h);
  EXPECT_EQ(HydeSearchVector(q, {}, HydeEmbed::kHypothesis).vector, q);
  EXPECT_EQ(HydeSearchVector({}, h, HydeEmbed::kQuery).vector, h);
  EXPECT_TRUE(HydeSearchVector({}, {}, HydeEmbed::kBoth).vector.empty());
  // Opposite vectors have no mean direction.
  EXPECT_EQ(HydeSearchVector(q, {-1, 0}, HydeEmbed::kBoth).vector, q);
}

TEST(HypothesizeTest, AsksTheLlmOnceThenAnswersFromTheCache) {
  TableLlm llm;
  llm.Answer("postgres port", "Postgres listens on 5432.");
  MapCache cache;
  const HypothesisCache bound = cache.Bind();
  HydeOptions options;
  HydeOutcome first = Hypothesize(llm, "postgres port", options, &bound);
  EXPECT_EQ(first.hypothesis, "Postgres listens on 5432.");
  EXPECT_FALSE(first.cached);
  EXPECT_TRUE(first.fallbacks.empty());
  EXPECT_EQ(cache.puts, 1);
  ASSERT_EQ(
      cache.entries.count("table:test|" + std::to_string(kHydePromptVersion) + "|postgres port"),
      1u);

  HydeOutcome second = Hypothesize(llm, "postgres port", options, &bound);
  EXPECT_EQ(second.hypothesis, first.hypothesis);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(llm.requests().size(), 1u);

  // With the cache off, every search asks.
  options.cache = false;
  HydeOutcome third = Hypothesize(llm, "postgres port", options, &bound);
  EXPECT_FALSE(third.cached);
  EXPECT_EQ(llm.requests().size(), 2u);
}

TEST(HypothesizeTest, LlmFailureIsAFallbackNotAnError) {
  TableLlm llm;
  llm.Fail(Unavailable("llm: table: HTTP 503: overloaded"));
  MapCache cache;
  const HypothesisCache bound = cache.Bind();
  HydeOutcome out = Hypothesize(llm, "anything", HydeOptions{}, &bound);
  EXPECT_TRUE(out.hypothesis.empty());
  ASSERT_EQ(out.fallbacks.size(), 1u);
  EXPECT_NE(out.fallbacks[0].find("table:test failed (unavailable)"), std::string::npos)
      << out.fallbacks[0];
  EXPECT_NE(out.fallbacks[0].find("503"), std::string::npos);
  EXPECT_EQ(cache.puts, 0);
}

TEST(HypothesizeTest, EmptyOrInvalidAnswersAreFallbacks) {
  TableLlm llm;
  llm.Answer("blank", "  \n ");
  llm.Answer("binary", std::string("ok \xff\xfe", 5));
  for (const char* q : {"blank", "binary"}) {
    HydeOutcome out = Hypothesize(llm, q, HydeOptions{}, nullptr);
    EXPECT_TRUE(out.hypothesis.empty()) << q;
    EXPECT_EQ(out.fallbacks.size(), 1u) << q;
  }
}

TEST(HypothesizeTest, LongAnswersAreCutOnACharacterBoundary) {
  TableLlm llm;
  std::string long_answer;
  while (long_answer.size() < 5000) long_answer += "ação ";
  llm.Answer("long", long_answer);
  HydeOutcome out = Hypothesize(llm, "long", HydeOptions{}, nullptr);
  EXPECT_LE(out.hypothesis.size(), 4000u);
  EXPECT_GT(out.hypothesis.size(), 3990u);
  EXPECT_TRUE(out.fallbacks.empty());
}

TEST(HypothesizeTest, CacheWriteFailureKeepsTheHypothesis) {
  TableLlm llm;
  llm.Answer("q", "An answer.");
  MapCache cache;
  cache.put_status = IOError("store: attempt to write a readonly database");
  const HypothesisCache bound = cache.Bind();
  HydeOutcome out = Hypothesize(llm, "q", HydeOptions{}, &bound);
  EXPECT_EQ(out.hypothesis, "An answer.");
  ASSERT_EQ(out.fallbacks.size(), 1u);
  EXPECT_NE(out.fallbacks[0].find("not cached"), std::string::npos);
}

}  // namespace
}  // namespace engram
