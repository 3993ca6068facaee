#include "src/embed/ollama_embedder.h"

#include <gtest/gtest.h>

#include "src/embed/remote_embedder_test_util.h"

namespace engram {
namespace {

using testing::BodyJson;
using testing::CannedResponse;
using testing::Json;
using testing::LoopbackServer;
using testing::OptionsFor;
using testing::ReceivedRequest;
using testing::Sequence;
using testing::TagOf;
using testing::Texts;
using testing::VectorFor;

// Ollama: {"model","input"} -> {"model","embeddings":[[...]]}.
LoopbackServer::Handler Answering(size_t dimension) {
  return [dimension](const ReceivedRequest& r) {
    const nlohmann::json body = BodyJson(r);
    nlohmann::json embeddings = nlohmann::json::array();
    for (const auto& t : body.at("input")) {
      embeddings.push_back(VectorFor(t.get<std::string>(), dimension));
    }
    return Json(200, {{"model", body.at("model")}, {"embeddings", embeddings}});
  };
}

TEST(OllamaEmbedderTest, SendsModelAndInputToApiEmbed) {
  LoopbackServer server(Answering(768));
  auto e = OllamaEmbedder::Create("", OptionsFor(server));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ((*e)->Space().Key(), "ollama:nomic-embed-text:768");
  auto v = (*e)->Embed(Texts(65), EmbedPurpose::kQuery);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(TagOf((*v)[64]), 64);
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/api/embed");
  const nlohmann::json body = BodyJson(requests[0]);
  EXPECT_EQ(body["model"], "nomic-embed-text");
  EXPECT_EQ(body["input"].size(), 64u);
  EXPECT_EQ(BodyJson(requests[1])["input"], nlohmann::json({"text 64"}));
}

TEST(OllamaEmbedderTest, KnownModelsHaveTheirDimensionOthersNeedOne) {
  EmbedderOptions options;
  auto minilm = OllamaEmbedder::Create("all-minilm:latest", options);
  ASSERT_TRUE(minilm.ok());
  EXPECT_EQ((*minilm)->Space().Key(), "ollama:all-minilm:latest:384");
  auto unknown = OllamaEmbedder::Create("my-embedder", options);
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("nomic-embed-text"), std::string::npos)
      << unknown.status().message();
  options.dimensions = 1024;
  auto wrong = OllamaEmbedder::Create("nomic-embed-text", options);
  EXPECT_EQ(wrong.status().code(), StatusCode::kInvalidArgument);
  options.dimensions = 640;
  auto given = OllamaEmbedder::Create("my-embedder", options);
  ASSERT_TRUE(given.ok());
  EXPECT_EQ((*given)->Space().dimension, 640u);
}

TEST(OllamaEmbedderTest, GivenDimensionIsCheckedAgainstTheAnswer) {
  LoopbackServer server(Answering(768));
  EmbedderOptions options = OptionsFor(server);
  options.dimensions = 1024;
  auto e = OllamaEmbedder::Create("my-embedder", options);
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed(Texts(2), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(v.status().message(), "embed: ollama: vector 0 has 768 dimensions, expected 1024");
}

TEST(OllamaEmbedderTest, ErrorOfTheServerIsPassedOn) {
  LoopbackServer server(Sequence(
      {Json(404, {{"error", "model \"nomic-embed-text\" not found, try pulling it first"}})}));
  auto e = OllamaEmbedder::Create("", OptionsFor(server));
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("try pulling it first"), std::string::npos)
      << v.status().message();
}

TEST(OllamaEmbedderTest, AnswerWithoutEmbeddingsIsRefused) {
  LoopbackServer server(Sequence({Json(200, {{"embedding", VectorFor("a", 768)}})}));
  auto e = OllamaEmbedder::Create("", OptionsFor(server));
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(v.status().message(), "embed: ollama: answer has no 'embeddings' array");
}

TEST(OllamaEmbedderTest, Retries500ThenSucceeds) {
  LoopbackServer server(Sequence({CannedResponse{500, R"({"error":"busy"})", {}, 0},
                                  Json(200, {{"embeddings", {VectorFor("text 0", 768)}}})}));
  auto e = OllamaEmbedder::Create("", OptionsFor(server));
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed(Texts(1), EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(server.Requests().size(), 2u);
}

}  // namespace
}  // namespace engram
