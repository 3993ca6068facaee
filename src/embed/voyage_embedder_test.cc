#include "src/embed/voyage_embedder.h"

#include <gtest/gtest.h>

#include "src/embed/remote_embedder_test_util.h"

namespace engram {
namespace {

using testing::BodyJson;
using testing::Header;
using testing::IndexedDataAnswer;
using testing::Json;
using testing::LogLines;
using testing::LoopbackServer;
using testing::OptionsFor;
using testing::ReceivedRequest;
using testing::Sequence;
using testing::TagOf;
using testing::Texts;
using testing::VectorFor;

constexpr char kKey[] = "pa-voyage-test-0c5e81d2";

LoopbackServer::Handler Answering(size_t dimension) {
  return [dimension](const ReceivedRequest& r) { return IndexedDataAnswer(r, dimension); };
}

std::unique_ptr<VoyageEmbedder> Make(const LoopbackServer& server, std::string model = "",
                                     size_t dimensions = 0) {
  EmbedderOptions options = OptionsFor(server);
  options.remote.api_key = kKey;
  options.dimensions = dimensions;
  auto e = VoyageEmbedder::Create(std::move(model), options);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

TEST(VoyageEmbedderTest, SendsInputTypeAfterThePurpose) {
  LoopbackServer server(Answering(1024));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->Space().Key(), "voyage:voyage-3.5:1024");
  auto docs = e->Embed(Texts(2), EmbedPurpose::kDocument);
  ASSERT_TRUE(docs.ok()) << docs.status().ToString();
  EXPECT_EQ(TagOf((*docs)[1]), 1);
  ASSERT_TRUE(e->Embed({"where is the database"}, EmbedPurpose::kQuery).ok());
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/v1/embeddings");
  EXPECT_EQ(Header(requests[0], "Authorization"), std::string("Bearer ") + kKey);
  const nlohmann::json doc_body = BodyJson(requests[0]);
  EXPECT_EQ(doc_body["input"], nlohmann::json({"text 0", "text 1"}));
  EXPECT_EQ(doc_body["model"], "voyage-3.5");
  EXPECT_EQ(doc_body["input_type"], "document");
  EXPECT_FALSE(doc_body.contains("output_dimension"));
  EXPECT_EQ(BodyJson(requests[1])["input_type"], "query");
}

TEST(VoyageEmbedderTest, SplitsBatchesAt1000Inputs) {
  // A model of 8 dimensions: 1001 full-size vectors are slow to write and
  // read in a sanitized build.
  LoopbackServer server(Answering(8));
  auto e = Make(server, "voyage-tiny", 8);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(1001), EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(TagOf((*v)[1000]), 1000);
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(BodyJson(requests[0])["input"].size(), 1000u);
  EXPECT_EQ(BodyJson(requests[1])["input"].size(), 1u);
}

TEST(VoyageEmbedderTest, SendsOutputDimensionOnlyWhenNotNative) {
  LoopbackServer server(Answering(2048));
  auto wide = Make(server, "voyage-3-large", 2048);
  ASSERT_NE(wide, nullptr);
  ASSERT_TRUE(wide->Embed({"a"}, EmbedPurpose::kDocument).ok());
  EXPECT_EQ(BodyJson(server.Requests().back())["output_dimension"], 2048);

  server.SetHandler(Answering(1024));
  auto native = Make(server, "voyage-code-3", 1024);
  ASSERT_NE(native, nullptr);
  ASSERT_TRUE(native->Embed({"a"}, EmbedPurpose::kDocument).ok());
  EXPECT_FALSE(BodyJson(server.Requests().back()).contains("output_dimension"));
}

TEST(VoyageEmbedderTest, RefusesDimensionsTheModelCannotGive) {
  EmbedderOptions options;
  options.remote.api_key = kKey;
  options.dimensions = 300;
  auto odd = VoyageEmbedder::Create("voyage-3.5", options);
  EXPECT_EQ(odd.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(odd.status().message().find("256, 512, 1024 or 2048"), std::string::npos)
      << odd.status().message();
  options.dimensions = 512;
  auto fixed = VoyageEmbedder::Create("voyage-code-2", options);
  EXPECT_EQ(fixed.status().code(), StatusCode::kInvalidArgument);
  options.dimensions = 0;
  auto lite = VoyageEmbedder::Create("voyage-3-lite", options);
  ASSERT_TRUE(lite.ok());
  EXPECT_EQ((*lite)->Space().dimension, 512u);
  auto no_key = VoyageEmbedder::Create("", EmbedderOptions{});
  EXPECT_NE(no_key.status().message().find("VOYAGE_API_KEY"), std::string::npos);
}

TEST(VoyageEmbedderTest, DetailOfAnErrorIsPassedOn) {
  LoopbackServer server(
      Sequence({Json(400, {{"detail",
                            "Request to model 'voyage-3.5' failed. The max allowed tokens per "
                            "submitted batch is 320000."}})}));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("max allowed tokens per submitted batch"), std::string::npos)
      << v.status().message();
}

TEST(VoyageEmbedderTest, RetriesThenFailsWithoutTheKey) {
  const nlohmann::json detail = {{"detail", std::string("Provided API key is invalid: ") + kKey}};
  LoopbackServer server(Sequence({Json(503, detail)}));
  LogLines log;
  EmbedderOptions options = OptionsFor(server);
  options.remote.api_key = kKey;
  options.remote.log = log.Sink();
  auto e = VoyageEmbedder::Create("", options);
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed(Texts(3), EmbedPurpose::kQuery);
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(server.Requests().size(), 3u);  // max_attempts
  EXPECT_EQ(v.status().message().find(kKey), std::string::npos) << v.status().message();
  EXPECT_FALSE(log.Lines().empty());
  for (const std::string& line : log.Lines()) {
    EXPECT_EQ(line.find(kKey), std::string::npos) << line;
  }
}

TEST(VoyageEmbedderTest, AnswerWithDuplicateIndexesIsRefused) {
  LoopbackServer server(
      Sequence({Json(200, {{"data",
                            {{{"index", 0}, {"embedding", VectorFor("a", 1024)}},
                             {{"index", 0}, {"embedding", VectorFor("b", 1024)}}}}})}));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(2), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(v.status().message().find("has index 0"), std::string::npos) << v.status().message();
}

}  // namespace
}  // namespace engram
