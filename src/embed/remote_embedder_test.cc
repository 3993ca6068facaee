// What the HTTP providers share: input checks, the dimension rule, answer
// parsing, and the spec strings of CreateEmbedder.
#include "src/embed/remote_embedder.h"

#include <gtest/gtest.h>

#include "src/embed/remote_embedder_test_util.h"

namespace engram {
namespace {

using testing::LoopbackServer;
using testing::OptionsFor;
using testing::ReceivedRequest;

constexpr size_t kChoices[] = {256, 512};
constexpr KnownModel kModels[] = {
    {"fixed", {768, false, {}}},
    {"short", {1536, true, {}}},
    {"choosy", {1024, false, kChoices}},
};

TEST(ChooseDimensionTest, NativeWhenNoneAsked) {
  EXPECT_EQ(*ChooseDimension("embed: t", "fixed", kModels, 0), 768u);
  EXPECT_EQ(*ChooseDimension("embed: t", "choosy", kModels, 1024), 1024u);
}

TEST(ChooseDimensionTest, TruncatableTakesAnySmallerOne) {
  EXPECT_EQ(*ChooseDimension("embed: t", "short", kModels, 100), 100u);
  EXPECT_EQ(ChooseDimension("embed: t", "short", kModels, 1537).status().message(),
            "embed: t: short gives at most 1536 dimensions, not 1537");
}

TEST(ChooseDimensionTest, ChoicesAndFixedAreListedWhenRefused) {
  EXPECT_EQ(*ChooseDimension("embed: t", "choosy", kModels, 512), 512u);
  EXPECT_EQ(ChooseDimension("embed: t", "choosy", kModels, 300).status().message(),
            "embed: t: choosy gives 256 or 512 dimensions, not 300");
  EXPECT_EQ(ChooseDimension("embed: t", "fixed", kModels, 512).status().message(),
            "embed: t: fixed gives 768 dimensions only, not 512");
}

TEST(ChooseDimensionTest, UnknownModelNeedsOne) {
  EXPECT_EQ(*ChooseDimension("embed: t", "other", kModels, 99), 99u);
  const Status s = ChooseDimension("embed: t", "other", kModels, 0).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(s.message(),
            "embed: t: model 'other' has no known dimension; set the dimensions option "
            "(known models: fixed, short or choosy)");
}

TEST(TakeIndexedDataTest, OrdersByIndexAndRefusesGaps) {
  nlohmann::json answer = {
      {"data", {{{"index", 1}, {"embedding", {2.0}}}, {{"index", 0}, {"embedding", {1.0}}}}}};
  auto v = TakeIndexedData(&answer, "embed: t");
  ASSERT_TRUE(v.ok());
  EXPECT_EQ((*v)[0], nlohmann::json({1.0}));
  EXPECT_EQ((*v)[1], nlohmann::json({2.0}));
  nlohmann::json gap = {{"data", {{{"index", 2}, {"embedding", {1.0}}}}}};
  EXPECT_EQ(TakeIndexedData(&gap, "embed: t").status().code(), StatusCode::kUnavailable);
  nlohmann::json none = {{"object", "list"}};
  EXPECT_EQ(TakeIndexedData(&none, "embed: t").status().message(),
            "embed: t: answer has no 'data' array");
}

TEST(BaseUrlOrTest, TrailingSlashesDropped) {
  EXPECT_EQ(BaseUrlOr("http://127.0.0.1:9/", "https://x"), "http://127.0.0.1:9");
  EXPECT_EQ(BaseUrlOr("", "https://x"), "https://x");
}

TEST(RemoteEmbedderTest, BadTextsAreRefusedBeforeAnyCall) {
  LoopbackServer server([](const ReceivedRequest& r) { return testing::IndexedDataAnswer(r, 8); });
  EmbedderOptions options = OptionsFor(server);
  options.dimensions = 8;
  auto e = CreateEmbedder("openai:compatible-model", options);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  auto empty = (*e)->Embed({"fine", ""}, EmbedPurpose::kDocument);
  EXPECT_EQ(empty.status().message(), "embed: openai: text 1 is empty");
  auto broken = (*e)->Embed({"fine", "ok", "bad \xC3("}, EmbedPurpose::kDocument);
  EXPECT_EQ(broken.status().message(), "embed: openai: text 2: invalid UTF-8 at byte 5");
  EXPECT_TRUE(server.Requests().empty());
}

TEST(CreateEmbedderTest, RemoteSpecsNameProviderAndModel) {
  EmbedderOptions options;
  options.remote.api_key = "k";
  options.remote.aws = {"AKID", "secret", ""};
  const std::pair<const char*, const char*> cases[] = {
      {"openai", "openai:text-embedding-3-small:1536"},
      {"openai:text-embedding-3-large", "openai:text-embedding-3-large:3072"},
      {"voyage", "voyage:voyage-3.5:1024"},
      {"voyage:voyage-code-2", "voyage:voyage-code-2:1536"},
      {"bedrock", "bedrock:amazon.titan-embed-text-v2:0:1024"},
      {"bedrock:amazon.titan-embed-text-v2:0", "bedrock:amazon.titan-embed-text-v2:0:1024"},
      {"bedrock:cohere.embed-english-v3", "bedrock:cohere.embed-english-v3:1024"},
      {"ollama", "ollama:nomic-embed-text:768"},
      {"ollama:mxbai-embed-large", "ollama:mxbai-embed-large:1024"},
  };
  for (const auto& [spec, key] : cases) {
    auto e = CreateEmbedder(spec, options);
    ASSERT_TRUE(e.ok()) << spec << ": " << e.status().ToString();
    EXPECT_EQ((*e)->Space().Key(), key) << spec;
  }
}

TEST(CreateEmbedderTest, ModelOfTheOptionsWhenTheSpecNamesNone) {
  EmbedderOptions options;
  options.model = "bge-m3";
  auto e = CreateEmbedder("ollama", options);
  ASSERT_TRUE(e.ok());
  EXPECT_EQ((*e)->Space().Key(), "ollama:bge-m3:1024");
  auto spec_wins = CreateEmbedder("ollama:all-minilm", options);
  ASSERT_TRUE(spec_wins.ok());
  EXPECT_EQ((*spec_wins)->Space().model, "all-minilm");
}

TEST(CreateEmbedderTest, UnknownProviderListsThemAll) {
  const Status s = CreateEmbedder("cohere", {}).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("local, hash, openai, voyage, bedrock, ollama or null"),
            std::string::npos)
      << s.message();
}

}  // namespace
}  // namespace engram
