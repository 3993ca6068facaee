#include "src/http/http_client.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "engram/clock.h"
#include "src/common/time_format.h"

namespace engram {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

// Answers with the queued results in turn (the last one repeated) and
// records every request.
class FakeTransport final : public HttpTransport {
 public:
  explicit FakeTransport(std::vector<Result<HttpResponse>> answers)
      : answers_(std::move(answers)) {}

  Result<HttpResponse> Send(const HttpRequest& request,
                            const HttpTimeouts& timeouts) const override {
    requests_.push_back(request);
    timeouts_.push_back(timeouts);
    const size_t i = std::min(requests_.size(), answers_.size()) - 1;
    return answers_[i];
  }

  size_t Calls() const { return requests_.size(); }
  const std::vector<HttpTimeouts>& Timeouts() const { return timeouts_; }

 private:
  std::vector<Result<HttpResponse>> answers_;
  mutable std::vector<HttpRequest> requests_;
  mutable std::vector<HttpTimeouts> timeouts_;
};

HttpResponse Answer(int status, std::string body = "{}", HttpHeaders headers = {}) {
  return HttpResponse{status, std::move(headers), std::move(body)};
}

RemoteOptions FastOptions(int max_attempts = 4) {
  RemoteOptions options;
  options.max_attempts = max_attempts;
  options.backoff_initial_ms = 100;
  options.backoff_max_ms = 1000;
  options.retry_after_max_ms = 30000;
  return options;
}

HttpRequest PostTo(std::string url) {
  HttpRequest request;
  request.method = "POST";
  request.url = std::move(url);
  request.body = R"({"input":["x"]})";
  return request;
}

// A client over `transport` whose sleeps and log lines are recorded.
struct Harness {
  explicit Harness(std::vector<Result<HttpResponse>> answers, RemoteOptions options = FastOptions(),
                   uint64_t seed = 42)
      : transport(std::make_shared<FakeTransport>(std::move(answers))) {
    options.log = [this](std::string_view line) { logs.emplace_back(line); };
    client = std::make_unique<HttpClient>(
        transport, std::move(options), [this](int ms) { sleeps.push_back(ms); }, seed);
  }
  std::shared_ptr<FakeTransport> transport;
  std::vector<int> sleeps;
  std::vector<std::string> logs;
  std::unique_ptr<HttpClient> client;
};

// "Wed, 21 Oct 2015 07:28:00 GMT" for a time in ms since the epoch.
std::string HttpDate(Timestamp t) {
  static constexpr const char* kDays[] = {"Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                            "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::string iso = FormatIso8601(t);  // 2015-10-21T07:28:00.000Z
  const int month = std::stoi(iso.substr(5, 2));
  return std::string(kDays[(t / 86'400'000) % 7]) + ", " + iso.substr(8, 2) + " " +
         kMonths[month - 1] + " " + iso.substr(0, 4) + " " + iso.substr(11, 8) + " GMT";
}

TEST(FindHeaderTest, MatchesNamesWithoutRegardToCase) {
  const HttpHeaders headers = {{"Content-Type", "a"}, {"retry-after", "3"}, {"RETRY-AFTER", "9"}};
  EXPECT_EQ(FindHeader(headers, "content-type"), "a");
  EXPECT_EQ(FindHeader(headers, "Retry-After"), "3");
  EXPECT_EQ(FindHeader(headers, "Date"), std::nullopt);
  EXPECT_EQ(FindHeader(headers, "Content-Typ"), std::nullopt);
}

TEST(RedactTest, ReplacesEveryOccurrenceOfEverySecret) {
  EXPECT_EQ(Redact("key=abc; again abc; tok=xyz", {"abc", "", "xyz"}),
            "key=[redacted]; again [redacted]; tok=[redacted]");
  EXPECT_EQ(Redact("nothing here", {}), "nothing here");
}

TEST(RedactTest, ReplacesALongerSecretWholeWhenItContainsAShorterOne) {
  EXPECT_EQ(Redact("a=abcdef b=abc", {"abc", "abcdef"}), "a=[redacted] b=[redacted]");
}

TEST(RedactTest, ReplacesThePercentEncodedFormOfASecret) {
  EXPECT_EQ(Redact("http://h/x?sig=a%2Fb%2Bc", {"a/b+c"}), "http://h/x?sig=[redacted]");
}

TEST(HttpClientTest, BackoffDoublesWithJitterBetweenHalfAndAllUpToTheCap) {
  Harness h({Answer(503)}, FastOptions(7));
  Result<HttpResponse> result = h.client->Send(PostTo("http://h/x"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 503);
  EXPECT_EQ(h.transport->Calls(), 7U);
  const std::vector<int> full = {100, 200, 400, 800, 1000, 1000};
  ASSERT_EQ(h.sleeps.size(), full.size());
  bool jittered = false;
  for (size_t i = 0; i < full.size(); ++i) {
    EXPECT_GE(h.sleeps[i], full[i] / 2) << "retry " << i + 1;
    EXPECT_LE(h.sleeps[i], full[i]) << "retry " << i + 1;
    jittered = jittered || h.sleeps[i] != full[i];
  }
  EXPECT_TRUE(jittered);
}

TEST(HttpClientTest, AFixedSeedGivesTheSameScheduleAndAnotherSeedAnother) {
  Harness a({Answer(503)}, FastOptions(7), 7);
  Harness b({Answer(503)}, FastOptions(7), 7);
  Harness c({Answer(503)}, FastOptions(7), 8);
  (void)a.client->Send(PostTo("http://h/x"));
  (void)b.client->Send(PostTo("http://h/x"));
  (void)c.client->Send(PostTo("http://h/x"));
  EXPECT_EQ(a.sleeps, b.sleeps);
  EXPECT_NE(a.sleeps, c.sleeps);
}

TEST(HttpClientTest, PassesTheTimeoutsOfTheOptions) {
  RemoteOptions options = FastOptions();
  options.connect_timeout_ms = 123;
  options.timeout_ms = 4567;
  Harness h({Answer(200)}, options);
  ASSERT_TRUE(h.client->Send(PostTo("http://h/x")).ok());
  ASSERT_EQ(h.transport->Timeouts().size(), 1U);
  EXPECT_EQ(h.transport->Timeouts()[0].connect_ms, 123);
  EXPECT_EQ(h.transport->Timeouts()[0].total_ms, 4567);
}

TEST(HttpClientTest, RetryAfterInSecondsReplacesTheBackoff) {
  Harness h({Answer(429, "{}", {{"retry-after", " 2 "}}), Answer(200)});
  Result<HttpResponse> result = h.client->Send(PostTo("http://h/x"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 200);
  EXPECT_THAT(h.sleeps, ElementsAre(2000));
}

TEST(HttpClientTest, RetryAfterAsAnHttpDateIsMeasuredFromTheDateHeader) {
  Harness h({Answer(503, "{}",
                    {{"Date", "Sat, 31 Oct 2015 23:59:59 GMT"},
                     {"Retry-After", "Sun, 01 Nov 2015 00:00:06 GMT"}}),
             Answer(200)});
  ASSERT_TRUE(h.client->Send(PostTo("http://h/x")).ok());
  EXPECT_THAT(h.sleeps, ElementsAre(7000));
}

TEST(HttpClientTest, RetryAfterAsAnHttpDateWithoutDateHeaderIsMeasuredFromTheClock) {
  const Timestamp now = SystemClock()->NowMillis();
  Harness h({Answer(429, "{}", {{"Retry-After", HttpDate(now + 5000)}}), Answer(200)});
  ASSERT_TRUE(h.client->Send(PostTo("http://h/x")).ok());
  ASSERT_EQ(h.sleeps.size(), 1U);
  EXPECT_GE(h.sleeps[0], 3000);  // the date has whole seconds
  EXPECT_LE(h.sleeps[0], 5000);
}

TEST(HttpClientTest, RetryAfterInThePastRetriesAtOnce) {
  Harness h({Answer(429, "{}",
                    {{"Date", "Wed, 21 Oct 2015 07:28:00 GMT"},
                     {"Retry-After", "Wed, 21 Oct 2015 07:27:00 GMT"}}),
             Answer(200)});
  ASSERT_TRUE(h.client->Send(PostTo("http://h/x")).ok());
  EXPECT_THAT(h.sleeps, ElementsAre(0));
}

TEST(HttpClientTest, UnreadableRetryAfterFallsBackToTheBackoff) {
  Harness h({Answer(429, "{}", {{"Retry-After", "soon"}}), Answer(200)});
  ASSERT_TRUE(h.client->Send(PostTo("http://h/x")).ok());
  ASSERT_EQ(h.sleeps.size(), 1U);
  EXPECT_GE(h.sleeps[0], 50);
  EXPECT_LE(h.sleeps[0], 100);
}

TEST(HttpClientTest, RetryAfterLongerThanTheMaximumEndsTheRetries) {
  Harness h({Answer(429, "{}", {{"Retry-After", "120"}}), Answer(200)});
  Result<HttpResponse> result = h.client->Send(PostTo("http://h/x"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 429);
  EXPECT_EQ(h.transport->Calls(), 1U);
  EXPECT_TRUE(h.sleeps.empty());
  ASSERT_EQ(h.logs.size(), 1U);
  EXPECT_THAT(h.logs[0], HasSubstr("not retrying"));
}

TEST(HttpClientTest, MaxAttemptsBoundsTheCalls) {
  Harness three({Answer(500)}, FastOptions(3));
  Result<HttpResponse> result = three.client->Send(PostTo("http://h/x"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 500);
  EXPECT_EQ(three.transport->Calls(), 3U);
  EXPECT_EQ(three.sleeps.size(), 2U);

  Harness one({Answer(500)}, FastOptions(1));
  (void)one.client->Send(PostTo("http://h/x"));
  EXPECT_EQ(one.transport->Calls(), 1U);

  Harness zero({Answer(500)}, FastOptions(0));
  (void)zero.client->Send(PostTo("http://h/x"));
  EXPECT_EQ(zero.transport->Calls(), 1U);
}

TEST(HttpClientTest, DoesNotRetryOtherClientErrors) {
  for (const int status : {400, 401, 403, 404, 422}) {
    Harness h({Answer(status), Answer(200)});
    Result<HttpResponse> result = h.client->Send(PostTo("http://h/x"));
    ASSERT_TRUE(result.ok());
    EXPECT_EQ(result->status, status);
    EXPECT_EQ(h.transport->Calls(), 1U) << status;
    EXPECT_TRUE(h.sleeps.empty());
  }
}

TEST(HttpClientTest, DoesNotRetryATimeout) {
  Harness h({DeadlineExceeded("http: POST http://h/x: timed out"), Answer(200)});
  Result<HttpResponse> result = h.client->Send(PostTo("http://h/x"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(h.transport->Calls(), 1U);
}

TEST(HttpClientTest, RetriesAConnectionErrorThenSucceeds) {
  Harness h({Unavailable("http: POST http://h/x: refused"), Answer(200)});
  Result<HttpResponse> result = h.client->Send(PostTo("http://h/x"));
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 200);
  EXPECT_EQ(h.sleeps.size(), 1U);
}

TEST(HttpClientTest, ReturnsTheLastConnectionErrorAfterTheLastAttempt) {
  Harness h({Unavailable("http: POST http://h/x: refused")}, FastOptions(3));
  Result<HttpResponse> result = h.client->Send(PostTo("http://h/x"));
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(result.status().message(), "http: POST http://h/x: refused");
  EXPECT_EQ(h.transport->Calls(), 3U);
}

TEST(HttpClientTest, LogsOneRedactedLinePerRetryWithoutQueryHeadersOrBody) {
  Harness h({Answer(429, R"({"echo":"sk-SECRET"})"), Answer(502), Answer(200)});
  HttpRequest request = PostTo("http://h/v1/x?key=sk-SECRET");
  request.headers = {{"Authorization", "Bearer sk-SECRET"}, {"X-Other", "header-value"}};
  request.secrets = {"sk-SECRET"};
  ASSERT_TRUE(h.client->Send(request).ok());
  ASSERT_EQ(h.logs.size(), 2U);
  EXPECT_EQ(h.logs[0], "http: POST http://h/v1/x: HTTP 429, retry 1 of 3 in " +
                           std::to_string(h.sleeps[0]) + " ms");
  EXPECT_EQ(h.logs[1], "http: POST http://h/v1/x: HTTP 502, retry 2 of 3 in " +
                           std::to_string(h.sleeps[1]) + " ms");
  for (const std::string& line : h.logs) {
    EXPECT_THAT(line, Not(HasSubstr("SECRET")));
    EXPECT_THAT(line, Not(HasSubstr("header-value")));
    EXPECT_THAT(line, Not(HasSubstr("input")));
  }
}

TEST(HttpClientTest, RedactsSecretsInTransportErrors) {
  Harness h({Unavailable("http: POST http://h/x?key=sk-SECRET: refused")}, FastOptions(2));
  HttpRequest request = PostTo("http://h/x?key=sk-SECRET");
  request.secrets = {"sk-SECRET"};
  Result<HttpResponse> result = h.client->Send(request);
  ASSERT_FALSE(result.ok());
  EXPECT_THAT(result.status().message(), Not(HasSubstr("SECRET")));
  ASSERT_EQ(h.logs.size(), 1U);
  EXPECT_THAT(h.logs[0], Not(HasSubstr("SECRET")));
}

// SendJson: one attempt per test, so each status is seen as it is.
Result<nlohmann::json> SendJsonOnce(HttpResponse answer, std::string_view what,
                                    std::vector<std::string> secrets = {}) {
  Harness h({std::move(answer)}, FastOptions(1));
  HttpRequest request = PostTo("http://h/x");
  request.secrets = std::move(secrets);
  return h.client->SendJson(request, what);
}

TEST(SendJsonTest, ParsesA2xxAnswer) {
  Result<nlohmann::json> json = SendJsonOnce(Answer(200, R"({"data":[1,2]})"), "embed: test");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ((*json)["data"][1], 2);
}

TEST(SendJsonTest, MalformedJsonInA2xxAnswerIsUnavailableWithItsPosition) {
  Result<nlohmann::json> json = SendJsonOnce(Answer(200, R"({"data": [1, 2)"), "embed: test");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(json.status().message(), "embed: test: answer: malformed JSON at byte 15");
  Result<nlohmann::json> empty = SendJsonOnce(Answer(204, ""), "embed: test");
  ASSERT_FALSE(empty.ok());
  EXPECT_THAT(empty.status().message(), HasSubstr("answer: malformed JSON at byte"));
}

TEST(SendJsonTest, OpenAiErrorIsFailedPreconditionOn401) {
  Result<nlohmann::json> json = SendJsonOnce(
      Answer(401, R"({"error":{"message":"Incorrect API key provided: sk-te****CRET.",)"
                  R"("type":"invalid_request_error","param":null,"code":"invalid_api_key"}})"),
      "embed: openai");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(json.status().message(),
            "embed: openai: HTTP 401: invalid_request_error: Incorrect API key provided: "
            "sk-te****CRET. (invalid_api_key)");
}

TEST(SendJsonTest, AnthropicOverloadedIsUnavailable) {
  Result<nlohmann::json> json = SendJsonOnce(
      Answer(529, R"({"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}})"),
      "llm: anthropic");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(json.status().message(), "llm: anthropic: HTTP 529: overloaded_error: Overloaded");
}

TEST(SendJsonTest, BedrockErrorTypeHeaderNamesTheError) {
  Result<nlohmann::json> throttled = SendJsonOnce(
      Answer(429, R"({"message":"Too many requests, please wait before trying again."})",
             {{"x-amzn-ErrorType",
               "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}}),
      "embed: bedrock");
  ASSERT_FALSE(throttled.ok());
  EXPECT_EQ(throttled.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(throttled.status().message(),
            "embed: bedrock: HTTP 429: ThrottlingException: Too many requests, please wait "
            "before trying again.");

  Result<nlohmann::json> invalid =
      SendJsonOnce(Answer(400, R"({"Message":"Malformed input request"})",
                          {{"X-Amzn-ErrorType", "ValidationException"}}),
                   "embed: bedrock");
  ASSERT_FALSE(invalid.ok());
  EXPECT_EQ(invalid.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(invalid.status().message(),
            "embed: bedrock: HTTP 400: ValidationException: Malformed input request");

  Result<nlohmann::json> denied =
      SendJsonOnce(Answer(403, "{}", {{"x-amzn-ErrorType", "AccessDeniedException:http://x/"}}),
                   "embed: bedrock");
  ASSERT_FALSE(denied.ok());
  EXPECT_EQ(denied.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(denied.status().message(), "embed: bedrock: HTTP 403: AccessDeniedException");
}

TEST(SendJsonTest, VoyageDetailIsTheMessage) {
  Result<nlohmann::json> json = SendJsonOnce(
      Answer(400, R"({"detail":"input_type must be query or document"})"), "embed: voyage");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(json.status().message(),
            "embed: voyage: HTTP 400: input_type must be query or document");

  Result<nlohmann::json> list =
      SendJsonOnce(Answer(422, R"({"detail":[{"loc":["body","input"],"msg":"field required"},)"
                               R"({"loc":["body","model"],"msg":"bad model"}]})"),
                   "embed: voyage");
  ASSERT_FALSE(list.ok());
  EXPECT_EQ(list.status().message(), "embed: voyage: HTTP 422: field required; bad model");
}

TEST(SendJsonTest, OllamaErrorStringIsTheMessage) {
  Result<nlohmann::json> json =
      SendJsonOnce(Answer(404, R"({"error":"model \"nomic\" not found, try pulling it first"})"),
                   "embed: ollama");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(json.status().message(),
            "embed: ollama: HTTP 404: model \"nomic\" not found, try pulling it first");
}

TEST(SendJsonTest, AnythingElseShowsTheStartOfTheBodyOnOneLine) {
  Result<nlohmann::json> html =
      SendJsonOnce(Answer(502, "<html>\r\n  <b>Bad Gateway</b>\n</html>\n"), "llm: openai");
  ASSERT_FALSE(html.ok());
  EXPECT_EQ(html.status().code(), StatusCode::kUnavailable);
  EXPECT_EQ(html.status().message(), "llm: openai: HTTP 502: <html> <b>Bad Gateway</b> </html>");

  Result<nlohmann::json> long_body = SendJsonOnce(Answer(500, std::string(1000, 'x')), "llm: x");
  ASSERT_FALSE(long_body.ok());
  EXPECT_EQ(long_body.status().message(), "llm: x: HTTP 500: " + std::string(200, 'x'));

  Result<nlohmann::json> empty = SendJsonOnce(Answer(503, ""), "llm: x");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.status().message(), "llm: x: HTTP 503");
}

TEST(SendJsonTest, DoesNotCutAUtf8SequenceInHalf) {
  // 199 ASCII bytes, then a two-byte character across the 200-byte limit.
  const std::string body = std::string(199, 'a') + "\xC3\xA9" + "tail";
  EXPECT_EQ(ApiErrorMessage(Answer(500, body)), std::string(199, 'a'));
}

TEST(SendJsonTest, RedactsASecretTheApiEchoes) {
  Result<nlohmann::json> json =
      SendJsonOnce(Answer(401, R"({"error":{"message":"bad key sk-test-SECRET","type":"auth"}})"),
                   "embed: openai", {"sk-test-SECRET"});
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().message(), "embed: openai: HTTP 401: auth: bad key [redacted]");
}

TEST(SendJsonTest, TransportErrorsKeepTheirCodeUnderTheCallsName) {
  Harness h({DeadlineExceeded("http: POST http://h/x: Operation timed out")});
  Result<nlohmann::json> json = h.client->SendJson(PostTo("http://h/x"), "embed: openai");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_EQ(json.status().message(), "embed: openai: http: POST http://h/x: Operation timed out");
}

TEST(SendJsonTest, ARedirectIsNotFollowedAndFailsThePrecondition) {
  Result<nlohmann::json> json = SendJsonOnce(Answer(301, ""), "embed: openai");
  ASSERT_FALSE(json.ok());
  EXPECT_EQ(json.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(json.status().message(), "embed: openai: HTTP 301");
}

}  // namespace
}  // namespace engram
