#include "src/embed/openai_embedder.h"

#include <gtest/gtest.h>

#include <chrono>

#include "src/embed/remote_embedder_test_util.h"

namespace engram {
namespace {

using testing::BodyJson;
using testing::CannedResponse;
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

constexpr char kKey[] = "sk-test-7f3a9c2e51d04b8a";

LoopbackServer::Handler Answering(size_t dimension) {
  return [dimension](const ReceivedRequest& r) { return IndexedDataAnswer(r, dimension); };
}

std::unique_ptr<OpenAiEmbedder> Make(const LoopbackServer& server, std::string model = "",
                                     size_t dimensions = 0) {
  EmbedderOptions options = OptionsFor(server);
  options.remote.api_key = kKey;
  options.dimensions = dimensions;
  auto e = OpenAiEmbedder::Create(std::move(model), options);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

TEST(OpenAiEmbedderTest, SendsTheDocumentedRequestAndOrdersVectorsByIndex) {
  LoopbackServer server(Answering(1536));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->Space().Key(), "openai:text-embedding-3-small:1536");
  auto v = e->Embed(Texts(3), EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*v)[i].size(), 1536u);
    EXPECT_NEAR(testing::SquaredNorm((*v)[i]), 1.0, 1e-5);
    EXPECT_EQ(TagOf((*v)[i]), static_cast<long>(i));
  }
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 1u);
  EXPECT_EQ(requests[0].method, "POST");
  EXPECT_EQ(requests[0].path, "/v1/embeddings");
  EXPECT_EQ(Header(requests[0], "Authorization"), std::string("Bearer ") + kKey);
  EXPECT_NE(Header(requests[0], "Content-Type").find("application/json"), std::string::npos);
  const nlohmann::json body = BodyJson(requests[0]);
  EXPECT_EQ(body["input"], nlohmann::json({"text 0", "text 1", "text 2"}));
  EXPECT_EQ(body["model"], "text-embedding-3-small");
  EXPECT_EQ(body["encoding_format"], "float");
  EXPECT_FALSE(body.contains("dimensions"));
}

TEST(OpenAiEmbedderTest, SplitsBatchesAt2048Inputs) {
  // Truncated to 8 dimensions: 2049 full-size vectors are slow to write and
  // read in a sanitized build.
  LoopbackServer server(Answering(8));
  auto e = Make(server, "text-embedding-3-small", 8);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(2049), EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  ASSERT_EQ(v->size(), 2049u);
  EXPECT_EQ(TagOf((*v)[2047]), 2047);
  EXPECT_EQ(TagOf((*v)[2048]), 2048);
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 2u);
  EXPECT_EQ(BodyJson(requests[0])["input"].size(), 2048u);
  EXPECT_EQ(BodyJson(requests[1])["input"], nlohmann::json({"text 2048"}));
}

TEST(OpenAiEmbedderTest, EmptyInputMakesNoCall) {
  LoopbackServer server(Answering(1536));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed({}, EmbedPurpose::kQuery);
  ASSERT_TRUE(v.ok());
  EXPECT_TRUE(v->empty());
  EXPECT_TRUE(server.Requests().empty());
}

TEST(OpenAiEmbedderTest, SendsDimensionsOnlyToTruncate) {
  LoopbackServer server(Answering(256));
  auto small = Make(server, "text-embedding-3-large", 256);
  ASSERT_NE(small, nullptr);
  EXPECT_EQ(small->Space().Key(), "openai:text-embedding-3-large:256");
  ASSERT_TRUE(small->Embed({"a"}, EmbedPurpose::kDocument).ok());
  EXPECT_EQ(BodyJson(server.Requests().back())["dimensions"], 256);

  server.SetHandler(Answering(3072));
  auto native = Make(server, "text-embedding-3-large", 3072);
  ASSERT_NE(native, nullptr);
  ASSERT_TRUE(native->Embed({"a"}, EmbedPurpose::kDocument).ok());
  EXPECT_FALSE(BodyJson(server.Requests().back()).contains("dimensions"));
}

TEST(OpenAiEmbedderTest, RefusesDimensionsTheModelCannotGive) {
  EmbedderOptions options;
  options.remote.api_key = kKey;
  options.dimensions = 4096;
  auto too_big = OpenAiEmbedder::Create("text-embedding-3-small", options);
  EXPECT_EQ(too_big.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(too_big.status().message().find("at most 1536"), std::string::npos)
      << too_big.status().message();
  options.dimensions = 512;
  auto fixed = OpenAiEmbedder::Create("text-embedding-ada-002", options);
  EXPECT_EQ(fixed.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(fixed.status().message().find("1536 dimensions only"), std::string::npos);
}

TEST(OpenAiEmbedderTest, UnknownModelOfACompatibleServerNeedsItsDimension) {
  LoopbackServer server(Answering(384));
  EmbedderOptions options = OptionsFor(server);  // base_url set, no key
  auto refused = OpenAiEmbedder::Create("bge-small", options);
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.status().message().find("dimensions"), std::string::npos);
  options.dimensions = 384;
  auto e = OpenAiEmbedder::Create("bge-small", options);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  ASSERT_TRUE((*e)->Embed({"x"}, EmbedPurpose::kQuery).ok());
  const ReceivedRequest r = server.Requests().back();
  EXPECT_FALSE(BodyJson(r).contains("dimensions"));
  EXPECT_EQ(Header(r, "Authorization"), "");
}

TEST(OpenAiEmbedderTest, KeyIsRequiredForTheRealApi) {
  auto e = OpenAiEmbedder::Create("", EmbedderOptions{});
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(e.status().message().find("OPENAI_API_KEY"), std::string::npos);
}

TEST(OpenAiEmbedderTest, Retries429HonouringRetryAfter) {
  LoopbackServer server(Sequence(
      {Json(429, {{"error", {{"message", "Rate limit reached"}}}}, {{"Retry-After", "1"}}),
       Json(200, {{"data", {{{"index", 0}, {"embedding", VectorFor("text 0", 1536)}}}}})}));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto v = e->Embed(Texts(1), EmbedPurpose::kDocument);
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(server.Requests().size(), 2u);
  EXPECT_GE(waited, std::chrono::milliseconds(900));
}

TEST(OpenAiEmbedderTest, Retries500ThenSucceeds) {
  LoopbackServer server(Sequence(
      {Json(500, {{"error", {{"message", "The server had an error"}}}}),
       Json(200, {{"data", {{{"index", 0}, {"embedding", VectorFor("text 0", 1536)}}}}})}));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(1), EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(server.Requests().size(), 2u);
}

TEST(OpenAiEmbedderTest, MalformedAnswerIsUnavailable) {
  LoopbackServer server(Sequence({CannedResponse{200, R"({"data": [)", {}, 0}}));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(2), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(v.status().message().find("embed: openai"), std::string::npos) << v.status().message();
  EXPECT_NE(v.status().message().find("malformed JSON"), std::string::npos) << v.status().message();
}

TEST(OpenAiEmbedderTest, WrongDimensionIsRefused) {
  LoopbackServer server(Answering(768));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(2), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);
  EXPECT_NE(v.status().message().find("has 768 dimensions, expected 1536"), std::string::npos)
      << v.status().message();
}

TEST(OpenAiEmbedderTest, CountMismatchIsRefused) {
  LoopbackServer server([](const ReceivedRequest&) {
    nlohmann::json data = nlohmann::json::array();
    for (size_t i = 0; i < 3; ++i) {
      data.push_back({{"index", i}, {"embedding", VectorFor("x", 1536)}});
    }
    return Json(200, {{"data", data}});
  });
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(4), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(v.status().message(), "embed: openai: answer has 3 vectors for 4 texts");
}

TEST(OpenAiEmbedderTest, ZeroAndOverflowingVectorsAreRefused) {
  LoopbackServer server(Sequence(
      {Json(200, {{"data", {{{"index", 0}, {"embedding", std::vector<double>(1536, 0.0)}}}}})}));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto zero = e->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_NE(zero.status().message().find("vector 0 is all zeros"), std::string::npos)
      << zero.status().message();
  nlohmann::json huge = VectorFor("x", 1536);
  huge[5] = 1e39;
  server.SetHandler(Sequence({Json(200, {{"data", {{{"index", 0}, {"embedding", huge}}}}})}));
  auto inf = e->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_NE(inf.status().message().find("NaN or infinite"), std::string::npos)
      << inf.status().message();
}

TEST(OpenAiEmbedderTest, TimeoutIsDeadlineExceededQuickly) {
  LoopbackServer server([](const ReceivedRequest& r) {
    CannedResponse answer = IndexedDataAnswer(r, 1536);
    answer.delay_ms = 1500;
    return answer;
  });
  EmbedderOptions options = OptionsFor(server);
  options.remote.timeout_ms = 200;
  auto e = OpenAiEmbedder::Create("", options);
  ASSERT_TRUE(e.ok());
  const auto start = std::chrono::steady_clock::now();
  auto v = (*e)->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kDeadlineExceeded) << v.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
  EXPECT_EQ(server.Requests().size(), 1u);  // a timed-out attempt is not retried
}

TEST(OpenAiEmbedderTest, ApiErrorMessageIsPassedOn) {
  LoopbackServer server(
      Sequence({Json(400, {{"error",
                            {{"message", "This model's maximum context length is 8192 tokens"},
                             {"type", "invalid_request_error"},
                             {"code", nullptr}}}})}));
  auto e = Make(server);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("maximum context length is 8192 tokens"), std::string::npos)
      << v.status().message();
  EXPECT_EQ(server.Requests().size(), 1u);  // a 400 is not retried
}

TEST(OpenAiEmbedderTest, KeyAppearsInNoErrorAndNoLogLine) {
  // The server echoes the key, as some APIs do in their error messages.
  const nlohmann::json echo = {
      {"error", {{"message", std::string("Incorrect API key provided: ") + kKey}}}};
  LoopbackServer server(Sequence({Json(500, echo), Json(401, echo)}));
  LogLines log;
  EmbedderOptions options = OptionsFor(server);
  options.remote.api_key = kKey;
  options.remote.log = log.Sink();
  auto e = OpenAiEmbedder::Create("", options);
  ASSERT_TRUE(e.ok());
  auto v = (*e)->Embed(Texts(1), EmbedPurpose::kDocument);
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), StatusCode::kFailedPrecondition) << v.status().ToString();
  EXPECT_EQ(v.status().message().find(kKey), std::string::npos) << v.status().message();
  EXPECT_NE(v.status().message().find("Incorrect API key provided"), std::string::npos);
  EXPECT_FALSE(log.Lines().empty());  // the retry after the 500 was logged
  for (const std::string& line : log.Lines()) {
    EXPECT_EQ(line.find(kKey), std::string::npos) << line;
  }
}

}  // namespace
}  // namespace engram
