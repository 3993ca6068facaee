#include "src/http/sigv4_signer.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "src/common/hash.h"
#include "src/common/time_format.h"

namespace engram {
namespace {

namespace fs = std::filesystem;

const fs::path& SuiteDir() {
  static const fs::path dir = fs::path(ENGRAM_TEST_DATA_DIR) / "sigv4" / "aws-c-auth-v4";
  return dir;
}

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

// request.txt: "METHOD target HTTP/1.1", "Name:value" lines (a line that
// starts with whitespace continues the value above), a blank line, the body.
// The target may hold spaces, so it runs from the first space to the last.
struct ParsedRequest {
  SigV4Request request;
  std::string request_line;
};

ParsedRequest ParseRequestFile(const std::string& text) {
  ParsedRequest out;
  size_t pos = text.find('\n');
  out.request_line = text.substr(0, pos);
  const std::string& line = out.request_line;
  const size_t first = line.find(' ');
  const size_t last = line.rfind(' ');
  out.request.method = line.substr(0, first);
  const std::string target = line.substr(first + 1, last - first - 1);
  const size_t q = target.find('?');
  out.request.path = target.substr(0, q);
  out.request.query = q == std::string::npos ? "" : target.substr(q + 1);
  while (pos != std::string::npos && pos + 1 < text.size()) {
    const size_t start = pos + 1;
    pos = text.find('\n', start);
    const std::string header =
        text.substr(start, pos == std::string::npos ? std::string::npos : pos - start);
    if (header.empty()) {
      if (pos != std::string::npos) out.request.body = text.substr(pos + 1);
      break;
    }
    if ((header[0] == ' ' || header[0] == '\t') && !out.request.headers.empty()) {
      out.request.headers.back().second += "\n" + header;
      continue;
    }
    const size_t colon = header.find(':');
    out.request.headers.emplace_back(header.substr(0, colon), header.substr(colon + 1));
  }
  return out;
}

struct SuiteCase {
  SigV4Request request;
  AwsCredentials credentials;
  SigV4Params params;
};

SuiteCase LoadCase(const std::string& name) {
  const fs::path dir = SuiteDir() / name;
  const nlohmann::json context = nlohmann::json::parse(ReadFile(dir / "context.json"));
  SuiteCase c;
  c.request = ParseRequestFile(ReadFile(dir / "request.txt")).request;
  const nlohmann::json& creds = context.at("credentials");
  c.credentials.access_key_id = creds.at("access_key_id").get<std::string>();
  c.credentials.secret_access_key = creds.at("secret_access_key").get<std::string>();
  c.credentials.session_token = creds.value("token", std::string());
  c.params.region = context.at("region").get<std::string>();
  c.params.service = context.at("service").get<std::string>();
  const Result<Timestamp> now = ParseIso8601(context.at("timestamp").get<std::string>());
  EXPECT_TRUE(now.ok()) << now.status().ToString();
  c.params.now = now.ok() ? *now : 0;
  c.params.normalize_path = context.value("normalize", true);
  c.params.sign_body = context.value("sign_body", false);
  c.params.omit_session_token = context.value("omit_session_token", false);
  c.params.expires_seconds = context.value("expiration_in_seconds", 3600);
  return c;
}

std::vector<std::string> CaseNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(SuiteDir(), ec)) {
    if (entry.is_directory()) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

// Headers as (lower-case name, value) pairs in a stable order.
std::vector<std::pair<std::string, std::string>> Normalised(const HttpHeaders& headers) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : headers) out.emplace_back(Lower(name), value);
  std::stable_sort(out.begin(), out.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

TEST(SigV4SuiteTest, HasEveryCase) { EXPECT_EQ(CaseNames().size(), 38u); }

class SigV4SuiteCaseTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SigV4SuiteCaseTest, HeaderSigningMatches) {
  const fs::path dir = SuiteDir() / GetParam();
  const SuiteCase c = LoadCase(GetParam());
  const Result<SigV4Signed> signed_request = SigV4SignHeaders(c.request, c.credentials, c.params);
  ASSERT_TRUE(signed_request.ok()) << signed_request.status().ToString();
  EXPECT_EQ(signed_request->canonical_request, ReadFile(dir / "header-canonical-request.txt"));
  EXPECT_EQ(signed_request->string_to_sign, ReadFile(dir / "header-string-to-sign.txt"));
  EXPECT_EQ(signed_request->signature, ReadFile(dir / "header-signature.txt"));

  // The request with the added headers is the signed request of the suite.
  const ParsedRequest expected = ParseRequestFile(ReadFile(dir / "header-signed-request.txt"));
  HttpHeaders headers = c.request.headers;
  headers.insert(headers.end(), signed_request->headers.begin(), signed_request->headers.end());
  EXPECT_EQ(Normalised(headers), Normalised(expected.request.headers));
  EXPECT_EQ(signed_request->query, c.request.query);
}

TEST_P(SigV4SuiteCaseTest, QuerySigningMatches) {
  const fs::path dir = SuiteDir() / GetParam();
  const SuiteCase c = LoadCase(GetParam());
  const Result<SigV4Signed> signed_request = SigV4PresignQuery(c.request, c.credentials, c.params);
  ASSERT_TRUE(signed_request.ok()) << signed_request.status().ToString();
  EXPECT_EQ(signed_request->canonical_request, ReadFile(dir / "query-canonical-request.txt"));
  EXPECT_EQ(signed_request->string_to_sign, ReadFile(dir / "query-string-to-sign.txt"));
  EXPECT_EQ(signed_request->signature, ReadFile(dir / "query-signature.txt"));
  EXPECT_TRUE(signed_request->headers.empty());

  const ParsedRequest expected = ParseRequestFile(ReadFile(dir / "query-signed-request.txt"));
  EXPECT_EQ(c.request.method + " " + c.request.path + "?" + signed_request->query + " HTTP/1.1",
            expected.request_line);
}

INSTANTIATE_TEST_SUITE_P(AwsCAuthV4, SigV4SuiteCaseTest, ::testing::ValuesIn(CaseNames()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = info.param;
                           std::replace(name.begin(), name.end(), '-', '_');
                           return name;
                         });

// 2015-08-30T12:36:00Z, the suite's date.
constexpr Timestamp kSuiteTime = 1440938160000;

AwsCredentials SuiteCredentials() {
  return {"AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY", ""};
}

TEST(SigV4Test, AmzDateAndScope) {
  EXPECT_EQ(SigV4AmzDate(kSuiteTime), "20150830T123600Z");
  EXPECT_EQ(SigV4Scope("20150830T123600Z", "us-east-1", "bedrock"),
            "20150830/us-east-1/bedrock/aws4_request");
}

TEST(SigV4Test, UriEncodeKeepsOnlyUnreserved) {
  EXPECT_EQ(SigV4UriEncode("a-b_c.d~e/f:g h%", false), "a-b_c.d~e%2Ff%3Ag%20h%25");
  EXPECT_EQ(SigV4UriEncode("a/b", true), "a/b");
  EXPECT_EQ(SigV4UriEncode("\xE1\x88\xB4", false), "%E1%88%B4");
}

TEST(SigV4Test, CanonicalQueryDecodesOnceAndSorts) {
  EXPECT_EQ(SigV4CanonicalQuery("b=2&a=%7e&a=1&c"), "a=1&a=~&b=2&c=");
  EXPECT_EQ(SigV4CanonicalQuery("x=a+b&y=%zz"), "x=a%2Bb&y=%25zz");
  EXPECT_EQ(SigV4CanonicalQuery(""), "");
}

// The Bedrock case: the model id's ':' travels as %3A and is signed as
// %253A, the path encoded twice.
constexpr char kBedrockUrl[] =
    "https://bedrock-runtime.us-east-1.amazonaws.com/model/amazon.titan-embed-text-v2%3A0/invoke";
constexpr char kBedrockBody[] = R"({"inputText":"hello","dimensions":256,"normalize":true})";

TEST(SigV4BedrockTest, ModelIdWithColonIsEncodedTwiceInTheCanonicalPath) {
  EXPECT_EQ(SigV4CanonicalUri("/model/amazon.titan-embed-text-v2%3A0/invoke", true),
            "/model/amazon.titan-embed-text-v2%253A0/invoke");

  HttpRequest request;
  request.method = "POST";
  request.url = kBedrockUrl;
  request.headers = {{"Content-Type", "application/json"}, {"Accept", "application/json"}};
  request.body = kBedrockBody;
  AwsCredentials creds = SuiteCredentials();
  creds.session_token = "session-token-value";
  ASSERT_TRUE(SignRequestSigV4(&request, creds, "us-east-1", "bedrock", kSuiteTime).ok());
  EXPECT_EQ(request.url, kBedrockUrl);  // the wire path keeps %3A

  // The same request through the building blocks: the canonical request,
  // exactly, and the signature in the Authorization header.
  SigV4Request same;
  same.method = "POST";
  same.path = "/model/amazon.titan-embed-text-v2%3A0/invoke";
  same.headers = request.headers;
  same.headers.emplace_back("Host", "bedrock-runtime.us-east-1.amazonaws.com");
  same.body = kBedrockBody;
  const std::vector<std::string> names = {"accept",     "content-type",
                                          "host",       "x-amz-content-sha256",
                                          "x-amz-date", "x-amz-security-token"};
  const std::string body_hash = Sha256Hex(kBedrockBody);
  const std::string canonical = SigV4CanonicalRequest(same, names, true, body_hash);
  EXPECT_EQ(canonical,
            "POST\n"
            "/model/amazon.titan-embed-text-v2%253A0/invoke\n"
            "\n"
            "accept:application/json\n"
            "content-type:application/json\n"
            "host:bedrock-runtime.us-east-1.amazonaws.com\n"
            "x-amz-content-sha256:" +
                body_hash +
                "\n"
                "x-amz-date:20150830T123600Z\n"
                "x-amz-security-token:session-token-value\n"
                "\n"
                "accept;content-type;host;x-amz-content-sha256;x-amz-date;x-amz-security-token\n" +
                body_hash);
  const std::string signature = SigV4Signature(
      creds.secret_access_key, "20150830T123600Z", "us-east-1", "bedrock",
      SigV4StringToSign("20150830T123600Z", "20150830/us-east-1/bedrock/aws4_request", canonical));
  EXPECT_EQ(FindHeader(request.headers, "authorization"),
            "AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20150830/us-east-1/bedrock/aws4_request, "
            "SignedHeaders=accept;content-type;host;x-amz-content-sha256;x-amz-date;"
            "x-amz-security-token, Signature=" +
                signature);
  EXPECT_EQ(FindHeader(request.headers, "x-amz-date"), "20150830T123600Z");
  EXPECT_EQ(FindHeader(request.headers, "x-amz-content-sha256"), body_hash);
  EXPECT_EQ(FindHeader(request.headers, "x-amz-security-token"), "session-token-value");
  EXPECT_FALSE(FindHeader(request.headers, "host").has_value());  // curl sends it from the URL

  // Every secret is known to the redactor.
  const auto has = [&request](const std::string& s) {
    return std::find(request.secrets.begin(), request.secrets.end(), s) != request.secrets.end();
  };
  EXPECT_TRUE(has(signature));
  EXPECT_TRUE(has(creds.secret_access_key));
  EXPECT_TRUE(has(creds.session_token));
}

// Signs `url` and returns the Host value whose signature matches.
std::string SignedHost(const std::string& url) {
  HttpRequest request;
  request.method = "GET";
  request.url = url;
  const Status status =
      SignRequestSigV4(&request, SuiteCredentials(), "us-east-1", "service", kSuiteTime);
  EXPECT_TRUE(status.ok()) << status.ToString();
  // Find the host that reproduces the Authorization header.
  for (const char* host :
       {"example.com", "example.com:8080", "127.0.0.1:8080", "example.com:443", "example.com:80"}) {
    SigV4Request same;
    same.method = "GET";
    same.path = "/";
    same.headers = {{"Host", host}};
    SigV4Params params{"us-east-1", "service", kSuiteTime, true, true, false, 3600};
    const Result<SigV4Signed> expected = SigV4SignHeaders(same, SuiteCredentials(), params);
    if (expected.ok() && FindHeader(request.headers, "authorization") ==
                             FindHeader(expected->headers, "authorization")) {
      return host;
    }
  }
  return "";
}

TEST(SignRequestSigV4Test, SignsHostWithPortOnlyWhenNotTheDefault) {
  EXPECT_EQ(SignedHost("https://example.com/"), "example.com");
  EXPECT_EQ(SignedHost("https://example.com:443/"), "example.com");
  EXPECT_EQ(SignedHost("http://example.com:80"), "example.com");
  EXPECT_EQ(SignedHost("https://example.com:8080/"), "example.com:8080");
  EXPECT_EQ(SignedHost("http://127.0.0.1:8080/"), "127.0.0.1:8080");
}

TEST(SignRequestSigV4Test, SigningTwiceReplacesTheFirstSignature) {
  HttpRequest request;
  request.url = "https://example.com/a?b=c";
  ASSERT_TRUE(
      SignRequestSigV4(&request, SuiteCredentials(), "us-east-1", "bedrock", kSuiteTime).ok());
  ASSERT_TRUE(
      SignRequestSigV4(&request, SuiteCredentials(), "us-east-1", "bedrock", kSuiteTime + 60000)
          .ok());
  const auto count = std::count_if(request.headers.begin(), request.headers.end(),
                                   [](const auto& h) { return Lower(h.first) == "authorization"; });
  EXPECT_EQ(count, 1);
  EXPECT_EQ(FindHeader(request.headers, "x-amz-date"), "20150830T123700Z");
}

TEST(SignRequestSigV4Test, RefusesBadUrlsAndEmptyCredentials) {
  HttpRequest request;
  request.url = "example.com/path";
  EXPECT_EQ(SignRequestSigV4(&request, SuiteCredentials(), "us-east-1", "s", 0).code(),
            StatusCode::kInvalidArgument);
  request.url = "ftp://example.com/";
  EXPECT_EQ(SignRequestSigV4(&request, SuiteCredentials(), "us-east-1", "s", 0).code(),
            StatusCode::kInvalidArgument);
  request.url = "https://example.com:port/";
  EXPECT_EQ(SignRequestSigV4(&request, SuiteCredentials(), "us-east-1", "s", 0).code(),
            StatusCode::kInvalidArgument);
  request.url = "https:///path";
  EXPECT_EQ(SignRequestSigV4(&request, SuiteCredentials(), "us-east-1", "s", 0).code(),
            StatusCode::kInvalidArgument);

  request.url = "https://example.com/";
  AwsCredentials no_secret = SuiteCredentials();
  no_secret.secret_access_key.clear();
  const Status status = SignRequestSigV4(&request, no_secret, "us-east-1", "s", 0);
  EXPECT_EQ(status.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(), "sigv4: sign: empty access key id or secret access key");
  EXPECT_TRUE(request.secrets.empty());
}

}  // namespace
}  // namespace engram
