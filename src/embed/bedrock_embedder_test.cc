#include "src/embed/bedrock_embedder.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <regex>
#include <thread>

#include "src/embed/remote_embedder_test_util.h"

namespace engram {
namespace {

using testing::BodyJson;
using testing::CannedResponse;
using testing::Header;
using testing::Json;
using testing::LogLines;
using testing::LoopbackServer;
using testing::OptionsFor;
using testing::ReceivedRequest;
using testing::Sequence;
using testing::TagOf;
using testing::Texts;
using testing::VectorFor;

constexpr char kKeyId[] = "AKIDENGRAMTEST01";
constexpr char kSecret[] = "wJalrXUtnFEMI-engram-secret-5d1f";
constexpr char kToken[] = "FwoGZXIvYXdzEngramSessionToken9b";

EmbedderOptions BedrockOptions(const LoopbackServer& server, size_t dimensions = 0) {
  EmbedderOptions options = OptionsFor(server);
  options.remote.aws = {kKeyId, kSecret, kToken};
  options.remote.aws_region = "us-east-1";
  options.dimensions = dimensions;
  return options;
}

// Titan: {"inputText"} -> {"embedding", "inputTextTokenCount"}.
CannedResponse TitanAnswer(const ReceivedRequest& r, size_t dimension) {
  const nlohmann::json body = BodyJson(r);
  return Json(200, {{"embedding", VectorFor(body.at("inputText").get<std::string>(), dimension)},
                    {"inputTextTokenCount", 3}});
}

// Cohere: {"texts"} -> {"embeddings": [[...]], ...}.
CannedResponse CohereAnswer(const ReceivedRequest& r) {
  const nlohmann::json body = BodyJson(r);
  nlohmann::json embeddings = nlohmann::json::array();
  for (const auto& t : body.at("texts")) {
    embeddings.push_back(VectorFor(t.get<std::string>(), 1024));
  }
  return Json(200, {{"embeddings", embeddings},
                    {"id", "4f1c"},
                    {"response_type", "embeddings_floats"},
                    {"texts", body.at("texts")}});
}

std::unique_ptr<BedrockEmbedder> Make(const EmbedderOptions& options, std::string model = "") {
  auto e = BedrockEmbedder::Create(std::move(model), options);
  EXPECT_TRUE(e.ok()) << e.status().ToString();
  return e.ok() ? std::move(e).value() : nullptr;
}

TEST(BedrockEmbedderTest, TitanV2SignedRequestOneTextACall) {
  LoopbackServer server([](const ReceivedRequest& r) { return TitanAnswer(r, 512); });
  auto e = Make(BedrockOptions(server, 512));
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->Space().Key(), "bedrock:amazon.titan-embed-text-v2:0:512");
  auto v = e->Embed(Texts(3), EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  for (size_t i = 0; i < 3; ++i) {
    EXPECT_EQ((*v)[i].size(), 512u);
    EXPECT_EQ(TagOf((*v)[i]), static_cast<long>(i));
  }
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 3u);
  std::vector<std::string> inputs;
  for (const ReceivedRequest& r : requests) {
    EXPECT_EQ(r.method, "POST");
    EXPECT_EQ(r.path, "/model/amazon.titan-embed-text-v2%3A0/invoke");
    const std::string date = Header(r, "X-Amz-Date");
    EXPECT_TRUE(std::regex_match(date, std::regex(R"(\d{8}T\d{6}Z)"))) << date;
    const std::string scope =
        std::string(kKeyId) + "/" + date.substr(0, 8) + "/us-east-1/bedrock/aws4_request";
    const std::string auth = Header(r, "Authorization");
    EXPECT_EQ(auth.rfind("AWS4-HMAC-SHA256 Credential=" + scope, 0), 0u) << auth;
    EXPECT_NE(auth.find("SignedHeaders="), std::string::npos);
    EXPECT_NE(auth.find("Signature="), std::string::npos);
    EXPECT_EQ(Header(r, "X-Amz-Security-Token"), kToken);
    const nlohmann::json body = BodyJson(r);
    EXPECT_EQ(body["dimensions"], 512);
    EXPECT_EQ(body["normalize"], true);
    inputs.push_back(body["inputText"]);
  }
  std::sort(inputs.begin(), inputs.end());
  EXPECT_EQ(inputs, Texts(3));
}

TEST(BedrockEmbedderTest, TitanV2BadDimensionRefusedBeforeAnyCall) {
  LoopbackServer server([](const ReceivedRequest& r) { return TitanAnswer(r, 1024); });
  auto e = BedrockEmbedder::Create("", BedrockOptions(server, 300));
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(e.status().message().find("256, 512 or 1024"), std::string::npos)
      << e.status().message();
  auto via_spec =
      CreateEmbedder("bedrock:amazon.titan-embed-text-v2:0", BedrockOptions(server, 300));
  EXPECT_EQ(via_spec.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(server.Requests().empty());
}

TEST(BedrockEmbedderTest, TitanCallsRunEightAtMost) {
  auto in_flight = std::make_shared<std::atomic<int>>(0);
  auto most = std::make_shared<std::atomic<int>>(0);
  LoopbackServer server([in_flight, most](const ReceivedRequest& r) {
    const int now = ++*in_flight;
    int seen = most->load();
    while (now > seen && !most->compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(60));
    --*in_flight;
    return TitanAnswer(r, 1024);
  });
  auto e = Make(BedrockOptions(server));
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(24), EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(TagOf((*v)[23]), 23);
  EXPECT_EQ(server.Requests().size(), 24u);
  EXPECT_GT(most->load(), 1);
  EXPECT_LE(most->load(), 8);
}

// The loopback server itself serves at most 8 requests at once, so the
// bound is pinned again behind a transport that counts without a limit.
class CountingTransport final : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest&, const HttpTimeouts&) const override {
    const int now = ++in_flight_;
    int seen = most_.load();
    while (now > seen && !most_.compare_exchange_weak(seen, now)) {
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    --in_flight_;
    return HttpResponse{200, {}, nlohmann::json({{"embedding", VectorFor("x", 1024)}}).dump()};
  }
  int MostInFlight() const { return most_.load(); }

 private:
  mutable std::atomic<int> in_flight_{0};
  mutable std::atomic<int> most_{0};
};

TEST(BedrockEmbedderTest, TitanParallelismIsBoundedWhateverTheServer) {
  auto transport = std::make_shared<CountingTransport>();
  EmbedderOptions options;
  options.remote.aws = {kKeyId, kSecret, ""};
  auto e = BedrockEmbedder::Create("", options,
                                   std::make_shared<const HttpClient>(transport, options.remote));
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  auto v = (*e)->Embed(Texts(40), EmbedPurpose::kQuery);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_GT(transport->MostInFlight(), 1);
  EXPECT_LE(transport->MostInFlight(), 8);
}

TEST(BedrockEmbedderTest, OneFailedTextFailsTheWholeBatch) {
  LoopbackServer server([](const ReceivedRequest& r) {
    if (BodyJson(r)["inputText"] == "text 5") {
      return Json(400, {{"message", "Malformed input request: text 5 is bad"}},
                  {{"x-amzn-ErrorType", "ValidationException"}});
    }
    return TitanAnswer(r, 1024);
  });
  auto e = Make(BedrockOptions(server));
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(12), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("Malformed input request"), std::string::npos)
      << v.status().message();
}

TEST(BedrockEmbedderTest, ErrorTypeHeaderAndMessageArePassedOn) {
  LoopbackServer server(Sequence(
      {Json(400, {{"message", "The provided model identifier is invalid."}},
            {{"x-amzn-ErrorType", "ValidationException:http://internal.amazon.com/coral/"}})}));
  auto e = Make(BedrockOptions(server));
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(v.status().message().find("ValidationException"), std::string::npos)
      << v.status().message();
  EXPECT_NE(v.status().message().find("model identifier is invalid"), std::string::npos);
}

TEST(BedrockEmbedderTest, TitanV1IsFixedAt1536) {
  LoopbackServer server([](const ReceivedRequest& r) { return TitanAnswer(r, 1536); });
  auto e = Make(BedrockOptions(server), "amazon.titan-embed-text-v1");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->Space().dimension, 1536u);
  ASSERT_TRUE(e->Embed({"a"}, EmbedPurpose::kDocument).ok());
  const ReceivedRequest r = server.Requests().back();
  EXPECT_EQ(r.path, "/model/amazon.titan-embed-text-v1/invoke");
  EXPECT_EQ(BodyJson(r), nlohmann::json({{"inputText", "a"}}));
  auto refused = BedrockEmbedder::Create("amazon.titan-embed-text-v1", BedrockOptions(server, 512));
  EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
}

TEST(BedrockEmbedderTest, CohereBatchesAt96WithInputType) {
  LoopbackServer server(CohereAnswer);
  auto e = Make(BedrockOptions(server), "cohere.embed-multilingual-v3");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->Space().Key(), "bedrock:cohere.embed-multilingual-v3:1024");
  auto v = e->Embed(Texts(97), EmbedPurpose::kDocument);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(TagOf((*v)[96]), 96);
  ASSERT_TRUE(e->Embed({"query"}, EmbedPurpose::kQuery).ok());
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 3u);
  EXPECT_EQ(requests[0].path, "/model/cohere.embed-multilingual-v3/invoke");
  EXPECT_EQ(BodyJson(requests[0])["texts"].size(), 96u);
  EXPECT_EQ(BodyJson(requests[1])["texts"].size(), 1u);
  EXPECT_EQ(BodyJson(requests[0])["input_type"], "search_document");
  EXPECT_EQ(BodyJson(requests[0])["truncate"], "END");
  EXPECT_EQ(BodyJson(requests[2])["input_type"], "search_query");
}

TEST(BedrockEmbedderTest, CohereCountMismatchIsRefused) {
  LoopbackServer server(Sequence({Json(200, {{"embeddings", {VectorFor("a", 1024)}}})}));
  auto e = Make(BedrockOptions(server), "cohere.embed-english-v3");
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(2), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().message(), "embed: bedrock: answer has 1 vector for 2 texts");
}

TEST(BedrockEmbedderTest, UnknownModelOrNoCredentialsRefused) {
  EmbedderOptions options;
  options.remote.aws = {kKeyId, kSecret, ""};
  auto unknown = BedrockEmbedder::Create("amazon.titan-embed-g1-text-02", options);
  EXPECT_EQ(unknown.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(unknown.status().message().find("cohere.embed-english-v3"), std::string::npos);
  auto anonymous = BedrockEmbedder::Create("", EmbedderOptions{});
  EXPECT_EQ(anonymous.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(anonymous.status().message().find("embed: bedrock"), std::string::npos);
}

TEST(BedrockEmbedderTest, SecretsAppearInNoErrorAndNoLogLine) {
  const nlohmann::json echo = {
      {"message", std::string("The security token included in the request is invalid: ") + kToken +
                      " " + kSecret}};
  LoopbackServer server(
      Sequence({Json(500, echo, {{"x-amzn-ErrorType", "InternalServerException"}}),
                Json(403, echo, {{"x-amzn-ErrorType", "UnrecognizedClientException"}})}));
  LogLines log;
  EmbedderOptions options = BedrockOptions(server);
  options.remote.log = log.Sink();
  auto e = Make(options);
  ASSERT_NE(e, nullptr);
  auto v = e->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kFailedPrecondition) << v.status().ToString();
  EXPECT_EQ(v.status().message().find(kToken), std::string::npos) << v.status().message();
  EXPECT_EQ(v.status().message().find(kSecret), std::string::npos) << v.status().message();
  EXPECT_FALSE(log.Lines().empty());
  for (const std::string& line : log.Lines()) {
    EXPECT_EQ(line.find(kToken), std::string::npos) << line;
    EXPECT_EQ(line.find(kSecret), std::string::npos) << line;
  }
}

TEST(BedrockEmbedderTest, TimeoutIsDeadlineExceededQuickly) {
  LoopbackServer server([](const ReceivedRequest& r) {
    CannedResponse answer = TitanAnswer(r, 1024);
    answer.delay_ms = 1500;
    return answer;
  });
  EmbedderOptions options = BedrockOptions(server);
  options.remote.timeout_ms = 200;
  auto e = Make(options);
  ASSERT_NE(e, nullptr);
  const auto start = std::chrono::steady_clock::now();
  auto v = e->Embed(Texts(1), EmbedPurpose::kDocument);
  EXPECT_EQ(v.status().code(), StatusCode::kDeadlineExceeded) << v.status().ToString();
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(1000));
}

}  // namespace
}  // namespace engram
