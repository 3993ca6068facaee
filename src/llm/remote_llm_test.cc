// What every provider behind an HTTP API must do, each against a real
// server on 127.0.0.1: trim the answer, retry 429 and 5xx, turn garbage
// into Unavailable, give up on a slow server at once, and never let a
// secret out.
#include <chrono>
#include <functional>
#include <string>
#include <thread>
#include <vector>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engram/llm.h"
#include "src/llm/llm_test_util.h"

namespace engram {
namespace {

using ::engram::testing::BodyJson;
using ::engram::testing::CannedResponse;
using ::engram::testing::HydeRequest;
using ::engram::testing::Json;
using ::engram::testing::LogLines;
using ::engram::testing::LoopbackOptions;
using ::engram::testing::LoopbackServer;
using ::engram::testing::ReceivedRequest;
using ::engram::testing::Sequence;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

constexpr char kApiKey[] = "sk-test-0123456789abcdefSECRET";
constexpr char kAwsSecret[] = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYSECRETKEY";
constexpr char kAwsToken[] = "IQoJb3JpZ2luX2VjEXAMPLESESSIONTOKEN";

struct ProviderCase {
  std::string label;  // names the test instance
  std::string spec;
  std::string name;  // Name() of the provider
  // A 2xx answer whose text is `text`.
  std::function<nlohmann::json(const std::string& text)> answer;
  // 2xx answers that hold no text.
  std::vector<nlohmann::json> no_text;
};

void PrintTo(const ProviderCase& c, std::ostream* os) { *os << c.label; }

std::vector<ProviderCase> Providers() {
  return {
      {"openai",
       "openai:gpt-4o-mini",
       "openai:gpt-4o-mini",
       [](const std::string& text) {
         return nlohmann::json{{"choices",
                                {{{"message", {{"role", "assistant"}, {"content", text}}},
                                  {"finish_reason", "stop"}}}}};
       },
       {nlohmann::json::object(),
        {{"choices", nlohmann::json::array()}},
        {{"choices", {{{"message", {{"role", "assistant"}, {"content", nullptr}}}}}}},
        {{"choices", {{{"message", {{"role", "assistant"}, {"content", "  \n "}}}}}}},
        {{"choices", {{{"message", {{"role", "assistant"}, {"content", 42}}}}}}},
        {{"choices", "text"}},
        nlohmann::json::array()}},
      {"anthropic",
       "anthropic:claude-3-5-haiku-latest",
       "anthropic:claude-3-5-haiku-latest",
       [](const std::string& text) {
         return nlohmann::json{{"type", "message"},
                               {"role", "assistant"},
                               {"content", {{{"type", "text"}, {"text", text}}}},
                               {"stop_reason", "end_turn"}};
       },
       {{{"type", "message"}, {"content", nlohmann::json::array()}},
        {{"type", "message"}, {"content", "text outside a block"}},
        {{"type", "message"}, {"content", {{{"type", "text"}, {"text", " "}}}}},
        {{"type", "message"}, {"content", {{{"type", "text"}, {"text", 7}}}}},
        {{"type", "message"}, {"content", {{{"type", "tool_use"}, {"text", "not an answer"}}}}},
        {{"type", "message"}}}},
      {"bedrock",
       "bedrock:anthropic.claude-3-haiku-20240307-v1:0",
       "bedrock:anthropic.claude-3-haiku-20240307-v1:0",
       [](const std::string& text) {
         return nlohmann::json{
             {"output", {{"message", {{"role", "assistant"}, {"content", {{{"text", text}}}}}}}},
             {"stopReason", "end_turn"}};
       },
       {{{"output", {{"message", {{"role", "assistant"}, {"content", nlohmann::json::array()}}}}}},
        {{"output", {{"message", {{"role", "assistant"}, {"content", {{{"text", ""}}}}}}}}},
        {{"output", {{"message", {{"role", "assistant"}, {"content", {{{"image", {}}}}}}}}}},
        {{"output", {{"message", "text"}}}},
        {{"stopReason", "end_turn"}}}},
      {"ollama",
       "ollama:llama3.2",
       "ollama:llama3.2",
       [](const std::string& text) {
         return nlohmann::json{{"model", "llama3.2"},
                               {"message", {{"role", "assistant"}, {"content", text}}},
                               {"done", true}};
       },
       {{{"done", true}},
        {{"message", {{"role", "assistant"}, {"content", ""}}}, {"done", true}},
        {{"message", {{"role", "assistant"}}}, {"done", true}},
        {{"message", "text"}, {"done", true}}}},
  };
}

class RemoteLlmTest : public ::testing::TestWithParam<ProviderCase> {
 protected:
  RemoteLlmTest() : server_(Sequence({Json(500, {{"error", "no answer set"}})})) {}

  // The provider of the case behind the server, with every secret set.
  std::unique_ptr<Llm> Make(int timeout_ms = 5000) {
    LlmOptions options = LoopbackOptions(server_.BaseUrl(), sink_);
    options.remote.timeout_ms = timeout_ms;
    options.remote.api_key = kApiKey;
    options.remote.aws.access_key_id = "AKIDEXAMPLE";
    options.remote.aws.secret_access_key = kAwsSecret;
    options.remote.aws.session_token = kAwsToken;
    Result<std::unique_ptr<Llm>> llm = CreateLlm(GetParam().spec, options);
    EXPECT_TRUE(llm.ok()) << llm.status().ToString();
    return llm.ok() ? std::move(llm).value() : nullptr;
  }

  CannedResponse Answer(const std::string& text) { return Json(200, GetParam().answer(text)); }

  LoopbackServer server_;
  std::shared_ptr<LogLines> sink_ = std::make_shared<LogLines>();
};

TEST_P(RemoteLlmTest, NamesProviderAndModel) {
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  EXPECT_EQ(llm->Name(), GetParam().name);
}

TEST_P(RemoteLlmTest, ReturnsTheAnswerTrimmed) {
  server_.SetHandler(Sequence({Answer("\n  Rotate them with logrotate.  \n")}));
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  Result<std::string> answer = llm->Complete(HydeRequest());
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "Rotate them with logrotate.");
  ASSERT_EQ(server_.Requests().size(), 1u);
  EXPECT_EQ(server_.Requests()[0].method, "POST");
  EXPECT_FALSE(BodyJson(server_.Requests()[0]).is_discarded());
}

TEST_P(RemoteLlmTest, RetriesA429AfterItsRetryAfterThenSucceeds) {
  server_.SetHandler(
      Sequence({Json(429, {{"error", {{"message", "Rate limit reached"}}}}, {{"Retry-After", "1"}}),
                Answer("after the wait")}));
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  const auto start = std::chrono::steady_clock::now();
  Result<std::string> answer = llm->Complete(HydeRequest());
  const auto waited = std::chrono::steady_clock::now() - start;
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "after the wait");
  EXPECT_EQ(server_.Requests().size(), 2u);
  EXPECT_GE(waited, std::chrono::milliseconds(900));  // Retry-After, not the 1 ms backoff
  EXPECT_FALSE(sink_->Lines().empty()) << "a retry is logged";
}

TEST_P(RemoteLlmTest, RetriesA500ThenSucceeds) {
  server_.SetHandler(
      Sequence({Json(500, {{"error", {{"message", "internal error"}}}}), Answer("second try")}));
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  Result<std::string> answer = llm->Complete(HydeRequest());
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "second try");
  EXPECT_EQ(server_.Requests().size(), 2u);
}

TEST_P(RemoteLlmTest, GivesUpAfterTheLastAttemptAsUnavailable) {
  server_.SetHandler(Sequence({Json(503, {{"message", "Service Unavailable"}})}));
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  Result<std::string> answer = llm->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(answer.status().message(), StartsWith("llm: " + GetParam().name + ": HTTP 503"));
  EXPECT_EQ(server_.Requests().size(), 3u);
}

TEST_P(RemoteLlmTest, MalformedJsonIsUnavailable) {
  server_.SetHandler(Sequence({CannedResponse{200, "{\"choices\": [", {}, 0}}));
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  Result<std::string> answer = llm->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(answer.status().message(), HasSubstr("malformed JSON"));
  EXPECT_THAT(answer.status().message(), StartsWith("llm: " + GetParam().name));
}

TEST_P(RemoteLlmTest, AnswerWithoutTextIsUnavailable) {
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  for (const nlohmann::json& body : GetParam().no_text) {
    server_.SetHandler(Sequence({Json(200, body)}));
    Result<std::string> answer = llm->Complete(HydeRequest());
    ASSERT_FALSE(answer.ok()) << body.dump();
    EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable) << body.dump();
    EXPECT_EQ(answer.status().message(), "llm: " + GetParam().name + ": answer held no text")
        << body.dump();
  }
}

TEST_P(RemoteLlmTest, SlowServerIsDeadlineExceededWithoutRetry) {
  CannedResponse slow = Answer("too late");
  slow.delay_ms = 1500;
  server_.SetHandler(Sequence({slow}));
  std::unique_ptr<Llm> llm = Make(/*timeout_ms=*/200);
  ASSERT_NE(llm, nullptr);
  const auto start = std::chrono::steady_clock::now();
  Result<std::string> answer = llm->Complete(HydeRequest());
  const auto took = std::chrono::steady_clock::now() - start;
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kDeadlineExceeded) << answer.status().ToString();
  EXPECT_LT(took, std::chrono::milliseconds(1000));
  EXPECT_EQ(server_.Requests().size(), 1u);
}

TEST_P(RemoteLlmTest, ServerDownIsUnavailable) {
  server_.Stop();
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  Result<std::string> answer = llm->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable) << answer.status().ToString();
}

// The server echoes every header it got (keys, tokens, the signature) in
// its error, and fails each attempt so each retry is logged.
TEST_P(RemoteLlmTest, SecretsAreNeverInTheErrorOrTheLog) {
  std::vector<std::string> secrets = {kApiKey, kAwsSecret, kAwsToken};
  auto signatures = std::make_shared<std::vector<std::string>>();
  auto seen_mutex = std::make_shared<std::mutex>();
  server_.SetHandler([signatures, seen_mutex](const ReceivedRequest& request) {
    std::string echo;
    for (const auto& [name, value] : request.headers) {
      echo.append(name).append("=").append(value).append(" ");
    }
    const std::string auth = testing::Header(request, "Authorization");
    const size_t sig = auth.find("Signature=");
    if (sig != std::string::npos) {
      std::lock_guard lock(*seen_mutex);
      signatures->push_back(auth.substr(sig + 10));
    }
    return Json(500,
                {{"error", {{"message", "rejected " + echo}}}, {"message", "rejected " + echo}});
  });
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  Result<std::string> answer = llm->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable);
  ASSERT_EQ(server_.Requests().size(), 3u);
  {
    std::lock_guard lock(*seen_mutex);
    secrets.insert(secrets.end(), signatures->begin(), signatures->end());
  }
  const std::vector<std::string> lines = sink_->Lines();
  EXPECT_FALSE(lines.empty());
  for (const std::string& secret : secrets) {
    EXPECT_THAT(answer.status().message(), Not(HasSubstr(secret)));
    for (const std::string& line : lines) EXPECT_THAT(line, Not(HasSubstr(secret)));
  }
}

// The API's message is cut to a bounded length; a secret that straddles the
// cut must not leave its first half behind (regression: the message was cut
// before it was redacted).
TEST_P(RemoteLlmTest, SecretCutShortInTheErrorIsNotLeaked) {
  server_.SetHandler([](const ReceivedRequest& request) {
    std::string secret = testing::Header(request, "x-api-key");
    if (secret.empty()) secret = testing::Header(request, "X-Amz-Security-Token");
    if (secret.empty()) secret = testing::Header(request, "Authorization").substr(7);  // Bearer
    const std::string message = std::string(185, 'x') + " " + secret + " rejected";
    return Json(401, {{"error", {{"message", message}}}, {"message", message}});
  });
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  Result<std::string> answer = llm->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kFailedPrecondition);
  for (const std::string secret : {kApiKey, kAwsToken}) {
    EXPECT_THAT(answer.status().message(), Not(HasSubstr(secret.substr(0, 8))));
  }
}

TEST_P(RemoteLlmTest, ConcurrentCallsEachGetTheirOwnAnswer) {
  const ProviderCase provider = GetParam();
  server_.SetHandler([provider](const ReceivedRequest& request) {
    const size_t at = request.body.find("query number ");
    const std::string number =
        at == std::string::npos
            ? "?"
            : request.body.substr(at + 13, request.body.find('"', at) - at - 13);
    return Json(200, provider.answer("hypothesis " + number));
  });
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  constexpr int kThreads = 8;
  std::vector<std::string> answers(kThreads);
  std::vector<std::thread> threads;
  threads.reserve(kThreads);
  for (int i = 0; i < kThreads; ++i) {
    threads.emplace_back([&llm, &answers, i] {
      LlmRequest request = HydeRequest();
      request.user = "query number " + std::to_string(i);
      Result<std::string> answer = llm->Complete(request);
      answers[i] = answer.ok() ? *answer : answer.status().ToString();
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (int i = 0; i < kThreads; ++i) EXPECT_EQ(answers[i], "hypothesis " + std::to_string(i));
  EXPECT_EQ(server_.Requests().size(), static_cast<size_t>(kThreads));
}

TEST_P(RemoteLlmTest, RefusesAnEmptyQueryWithoutACall) {
  std::unique_ptr<Llm> llm = Make();
  ASSERT_NE(llm, nullptr);
  LlmRequest request = HydeRequest();
  request.user = "  ";
  Result<std::string> answer = llm->Complete(request);
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kInvalidArgument);
  request = HydeRequest();
  request.max_tokens = 0;
  EXPECT_EQ(llm->Complete(request).status().code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(server_.Requests().empty());
}

INSTANTIATE_TEST_SUITE_P(Providers, RemoteLlmTest, ::testing::ValuesIn(Providers()),
                         [](const ::testing::TestParamInfo<ProviderCase>& info) {
                           return info.param.label;
                         });

}  // namespace
}  // namespace engram
