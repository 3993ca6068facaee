#include "src/http/bedrock_client.h"

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "src/common/hash.h"
#include "src/http/curl_transport.h"
#include "src/http/http_client.h"
#include "src/http/sigv4_signer.h"
#include "src/http/testing/loopback_server.h"

namespace engram {
namespace {

using testing::CannedResponse;
using testing::LoopbackServer;
using testing::ReceivedRequest;

constexpr char kModel[] = "amazon.titan-embed-text-v2:0";
constexpr Timestamp kNow = 1440938160000;  // 2015-08-30T12:36:00Z

AwsCredentials Credentials() {
  return {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", "the-session-token"};
}

RemoteOptions Options(const std::string& base_url) {
  RemoteOptions options;
  options.base_url = base_url;
  options.aws_region = "us-east-1";
  options.aws = Credentials();
  options.max_attempts = 1;
  return options;
}

std::unique_ptr<BedrockClient> MakeClient(const RemoteOptions& options) {
  auto http = std::make_shared<HttpClient>(CurlTransport(), options, [](int) {});
  Result<std::unique_ptr<BedrockClient>> client =
      BedrockClient::Create(http, options, std::make_shared<ManualClock>(kNow));
  EXPECT_TRUE(client.ok()) << client.status().ToString();
  return client.ok() ? std::move(client).value() : nullptr;
}

// The text between `key` and the next ',' (or the end) of `authorization`.
std::string Field(std::string_view authorization, std::string_view key) {
  const size_t start = authorization.find(key);
  if (start == std::string_view::npos) return "";
  const std::string_view rest = authorization.substr(start + key.size());
  return std::string(rest.substr(0, rest.find(',')));
}

std::vector<std::string> Split(const std::string& list, char separator) {
  std::vector<std::string> out;
  size_t start = 0;
  while (start <= list.size()) {
    size_t end = list.find(separator, start);
    if (end == std::string::npos) end = list.size();
    out.push_back(list.substr(start, end - start));
    start = end + 1;
  }
  return out;
}

// What a server does: recompute the signature of the request as received,
// from the signed headers the Authorization header names. Empty when it
// matches, else why not.
std::string CheckSignature(const ReceivedRequest& received, const std::string& secret) {
  const std::optional<std::string> authorization = FindHeader(received.headers, "authorization");
  const std::optional<std::string> amz_date = FindHeader(received.headers, "x-amz-date");
  if (!authorization || !amz_date) return "no Authorization or X-Amz-Date header";
  if (authorization->rfind("AWS4-HMAC-SHA256 ", 0) != 0) return "not AWS4-HMAC-SHA256";
  const std::vector<std::string> credential = Split(Field(*authorization, "Credential="), '/');
  if (credential.size() != 5) return "malformed Credential";
  const std::vector<std::string> signed_headers =
      Split(Field(*authorization, "SignedHeaders="), ';');
  const std::string signature = Field(*authorization, "Signature=");

  SigV4Request request;
  request.method = received.method;
  request.path = received.path;
  request.query = received.query;
  request.headers = received.headers;
  request.body = received.body;
  const std::string canonical =
      SigV4CanonicalRequest(request, signed_headers, true, Sha256Hex(received.body));
  const std::string scope = SigV4Scope(*amz_date, credential[2], credential[3]);
  const std::string expected = SigV4Signature(secret, *amz_date, credential[2], credential[3],
                                              SigV4StringToSign(*amz_date, scope, canonical));
  if (expected != signature) return "signature mismatch over:\n" + canonical;
  return "";
}

TEST(PercentEncodePathSegmentTest, EncodesEverythingButUnreserved) {
  EXPECT_EQ(PercentEncodePathSegment(kModel), "amazon.titan-embed-text-v2%3A0");
  EXPECT_EQ(PercentEncodePathSegment("a/b c~d"), "a%2Fb%20c~d");
}

TEST(BedrockClientTest, CreateRefusesEmptyCredentials) {
  RemoteOptions options = Options("http://127.0.0.1:1");
  options.aws.secret_access_key.clear();
  auto http = std::make_shared<HttpClient>(CurlTransport(), options, [](int) {});
  EXPECT_EQ(BedrockClient::Create(http, options).status().code(), StatusCode::kInvalidArgument);
}

TEST(BedrockClientTest, ServerVerifiesTheSignatureOfWhatItReceived) {
  LoopbackServer server([](const ReceivedRequest&) {
    return CannedResponse{200, R"({"embedding":[0.5,-0.5],"inputTextTokenCount":2})", {}, 0};
  });
  const std::unique_ptr<BedrockClient> client = MakeClient(Options(server.BaseUrl()));
  ASSERT_NE(client, nullptr);
  const nlohmann::json body = {{"inputText", "héllo wörld"}, {"dimensions", 256}};
  const Result<nlohmann::json> answer = client->Post(kModel, "invoke", body, "embed: bedrock");
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(answer->at("inputTextTokenCount"), 2);

  const std::vector<ReceivedRequest> requests = server.Requests();
  ASSERT_EQ(requests.size(), 1u);
  const ReceivedRequest& received = requests[0];
  EXPECT_EQ(received.method, "POST");
  EXPECT_EQ(received.path, "/model/amazon.titan-embed-text-v2%3A0/invoke");  // raw wire path
  EXPECT_EQ(nlohmann::json::parse(received.body), body);
  EXPECT_EQ(FindHeader(received.headers, "content-type"), "application/json");
  EXPECT_EQ(FindHeader(received.headers, "accept"), "application/json");
  EXPECT_EQ(FindHeader(received.headers, "x-amz-date"), "20150830T123600Z");
  EXPECT_EQ(FindHeader(received.headers, "x-amz-security-token"), "the-session-token");
  EXPECT_EQ(FindHeader(received.headers, "x-amz-content-sha256"), Sha256Hex(received.body));
  const std::string authorization = FindHeader(received.headers, "authorization").value_or("");
  EXPECT_NE(authorization.find("Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request"),
            std::string::npos);
  EXPECT_NE(authorization.find("SignedHeaders=accept;content-type;host;x-amz-content-sha256;"
                               "x-amz-date;x-amz-security-token,"),
            std::string::npos);
  EXPECT_EQ(CheckSignature(received, Credentials().secret_access_key), "");
  // And the check is not vacuous: another secret does not match.
  EXPECT_NE(CheckSignature(received, "another-secret"), "");
}

TEST(BedrockClientTest, ErrorNamesBedrocksErrorTypeAndNoSecret) {
  LoopbackServer server([](const ReceivedRequest&) {
    return CannedResponse{403,
                          R"({"message":"The security token included in the request is invalid"})",
                          {{"x-amzn-ErrorType", "UnrecognizedClientException:http://internal"}},
                          0};
  });
  const std::unique_ptr<BedrockClient> client = MakeClient(Options(server.BaseUrl() + "/"));
  ASSERT_NE(client, nullptr);
  const Result<nlohmann::json> answer =
      client->Post(kModel, "invoke", {{"inputText", "x"}}, "embed: bedrock");
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kFailedPrecondition);
  const std::string message = answer.status().message();
  EXPECT_NE(message.find("embed: bedrock"), std::string::npos) << message;
  EXPECT_NE(message.find("UnrecognizedClientException"), std::string::npos) << message;
  EXPECT_EQ(message.find(Credentials().secret_access_key), std::string::npos) << message;
  EXPECT_EQ(message.find(Credentials().session_token), std::string::npos) << message;
  // A trailing '/' on the base URL does not double the slash.
  ASSERT_EQ(server.Requests().size(), 1u);
  EXPECT_EQ(server.Requests()[0].path, "/model/amazon.titan-embed-text-v2%3A0/invoke");
}

TEST(BedrockClientTest, BodyThatIsNotUtf8IsRefusedBeforeSending) {
  LoopbackServer server([](const ReceivedRequest&) { return CannedResponse{200, "{}", {}, 0}; });
  const std::unique_ptr<BedrockClient> client = MakeClient(Options(server.BaseUrl()));
  ASSERT_NE(client, nullptr);
  const Result<nlohmann::json> answer =
      client->Post(kModel, "invoke", {{"inputText", "\xff\xfe"}}, "embed: bedrock");
  EXPECT_EQ(answer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(server.Requests().empty());
}

}  // namespace
}  // namespace engram
