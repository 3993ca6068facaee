#include "src/llm/openai_llm.h"

#include <memory>
#include <mutex>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/llm/llm_test_util.h"

namespace engram {
namespace {

using ::engram::testing::BodyJson;
using ::engram::testing::Header;
using ::engram::testing::HydeRequest;
using ::engram::testing::Json;
using ::engram::testing::LoopbackOptions;
using ::engram::testing::LoopbackServer;
using ::engram::testing::ReceivedRequest;
using ::engram::testing::Sequence;
using ::testing::HasSubstr;
using ::testing::Not;

nlohmann::json ChatAnswer(const std::string& text) {
  return {{"id", "chatcmpl-1"},
          {"object", "chat.completion"},
          {"choices",
           {{{"index", 0},
             {"message", {{"role", "assistant"}, {"content", text}}},
             {"finish_reason", "stop"}}}}};
}

TEST(OpenAiLlmTest, SendsAChatCompletionWithTheBearerKey) {
  LoopbackServer server(Sequence({Json(200, ChatAnswer("Use logrotate with copytruncate."))}));
  LlmOptions options = LoopbackOptions(server.BaseUrl());
  options.remote.api_key = "sk-test-key";
  Result<std::unique_ptr<Llm>> llm = CreateLlm("openai:gpt-4o-mini", options);
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  LlmRequest request = HydeRequest();
  request.max_tokens = 123;
  request.temperature = 0.25;
  Result<std::string> answer = (*llm)->Complete(request);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "Use logrotate with copytruncate.");

  ASSERT_EQ(server.Requests().size(), 1u);
  const ReceivedRequest got = server.Requests()[0];
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.path, "/v1/chat/completions");
  EXPECT_EQ(Header(got, "Authorization"), "Bearer sk-test-key");
  EXPECT_THAT(Header(got, "Content-Type"), HasSubstr("application/json"));
  const nlohmann::json body = BodyJson(got);
  EXPECT_EQ(body["model"], "gpt-4o-mini");
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], request.system);
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], request.user);
  // A server other than api.openai.com gets the classic name.
  EXPECT_EQ(body["max_tokens"], 123);
  EXPECT_FALSE(body.contains("max_completion_tokens"));
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.25);
}

TEST(OpenAiLlmTest, CompatibleServerNeedsNoKey) {
  LoopbackServer server(Sequence({Json(200, ChatAnswer("ok"))}));
  Result<std::unique_ptr<Llm>> llm =
      CreateLlm("openai:qwen2.5-7b-instruct", LoopbackOptions(server.BaseUrl()));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  EXPECT_EQ((*llm)->Name(), "openai:qwen2.5-7b-instruct");
  LlmRequest request = HydeRequest();
  request.system.clear();
  ASSERT_TRUE((*llm)->Complete(request).ok());
  const ReceivedRequest got = server.Requests().at(0);
  EXPECT_EQ(Header(got, "Authorization"), "");
  // No instructions: no system message at all.
  ASSERT_EQ(BodyJson(got)["messages"].size(), 1u);
  EXPECT_EQ(BodyJson(got)["messages"][0]["role"], "user");
}

TEST(OpenAiLlmTest, BaseUrlEndingInV1IsTheApiRoot) {
  LoopbackServer server(Sequence({Json(200, ChatAnswer("ok"))}));
  Result<std::unique_ptr<Llm>> llm =
      CreateLlm("openai:local", LoopbackOptions(server.BaseUrl() + "/v1/"));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  ASSERT_TRUE((*llm)->Complete(HydeRequest()).ok());
  EXPECT_EQ(server.Requests().at(0).path, "/v1/chat/completions");
}

// Records the request and answers it, without a network: api.openai.com
// cannot be reached from a test.
class RecordingTransport final : public HttpTransport {
 public:
  Result<HttpResponse> Send(const HttpRequest& request,
                            const HttpTimeouts& timeouts) const override {
    std::lock_guard lock(mutex_);
    last_ = request;
    return HttpResponse{200, {{"Content-Type", "application/json"}}, ChatAnswer("ok").dump()};
  }
  HttpRequest Last() const {
    std::lock_guard lock(mutex_);
    return last_;
  }

 private:
  mutable std::mutex mutex_;
  mutable HttpRequest last_;
};

TEST(OpenAiLlmTest, OpenAiItselfGetsMaxCompletionTokens) {
  auto transport = std::make_shared<RecordingTransport>();
  RemoteOptions options;
  options.api_key = "sk-test-key";
  OpenAiLlm llm("gpt-4o-mini", options, std::make_shared<const HttpClient>(transport, options));
  ASSERT_TRUE(llm.Complete(HydeRequest()).ok());
  const HttpRequest sent = transport->Last();
  EXPECT_EQ(sent.url, "https://api.openai.com/v1/chat/completions");
  const nlohmann::json body = nlohmann::json::parse(sent.body);
  EXPECT_EQ(body["max_completion_tokens"], 200);
  EXPECT_FALSE(body.contains("max_tokens"));
  EXPECT_THAT(sent.secrets, ::testing::Contains("sk-test-key"));
}

TEST(OpenAiLlmTest, UnauthorizedIsFailedPreconditionWithTheApiMessage) {
  LoopbackServer server(
      Sequence({Json(401, {{"error",
                            {{"message", "Incorrect API key provided: sk-wr***ey."},
                             {"type", "invalid_request_error"},
                             {"param", nullptr},
                             {"code", "invalid_api_key"}}}})}));
  LlmOptions options = LoopbackOptions(server.BaseUrl());
  options.remote.api_key = "sk-wrong-key";
  Result<std::unique_ptr<Llm>> llm = CreateLlm("openai", options);
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(answer.status().message(), HasSubstr("llm: openai:gpt-4o-mini: HTTP 401"));
  EXPECT_THAT(answer.status().message(), HasSubstr("Incorrect API key provided"));
  EXPECT_THAT(answer.status().message(), Not(HasSubstr("sk-wrong-key")));
  EXPECT_EQ(server.Requests().size(), 1u) << "a 401 is not retried";
}

TEST(OpenAiLlmTest, BadRequestIsInvalidArgument) {
  LoopbackServer server(Sequence({Json(400, {{"error",
                                              {{"message", "The model `gpt-nope` does not exist"},
                                               {"type", "invalid_request_error"},
                                               {"code", "model_not_found"}}}})}));
  Result<std::unique_ptr<Llm>> llm =
      CreateLlm("openai:gpt-nope", LoopbackOptions(server.BaseUrl()));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(answer.status().message(), HasSubstr("does not exist"));
}

TEST(OpenAiLlmTest, NeedsAKeyWithoutABaseUrl) {
  Result<std::unique_ptr<Llm>> llm = CreateLlm("openai", LlmOptions{});
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(llm.status().message(), HasSubstr("OPENAI_API_KEY"));
}

}  // namespace
}  // namespace engram
