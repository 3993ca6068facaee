#include "src/llm/anthropic_llm.h"

#include <memory>
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

nlohmann::json MessageAnswer(nlohmann::json content) {
  return {{"id", "msg_01"},
          {"type", "message"},
          {"role", "assistant"},
          {"model", "claude-3-5-haiku-latest"},
          {"content", std::move(content)},
          {"stop_reason", "end_turn"},
          {"usage", {{"input_tokens", 30}, {"output_tokens", 12}}}};
}

nlohmann::json Overloaded() {
  return {{"type", "error"}, {"error", {{"type", "overloaded_error"}, {"message", "Overloaded"}}}};
}

Result<std::unique_ptr<Llm>> Make(const LoopbackServer& server, const std::string& key) {
  LlmOptions options = LoopbackOptions(server.BaseUrl());
  options.remote.api_key = key;
  return CreateLlm("anthropic", options);
}

TEST(AnthropicLlmTest, SendsAMessageWithKeyAndVersionHeaders) {
  LoopbackServer server(
      Sequence({Json(200, MessageAnswer({{{"type", "text"}, {"text", " Run logrotate. "}}}))}));
  Result<std::unique_ptr<Llm>> llm = Make(server, "sk-ant-test");
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  EXPECT_EQ((*llm)->Name(), "anthropic:claude-3-5-haiku-latest");
  LlmRequest request = HydeRequest();
  request.max_tokens = 150;
  request.temperature = 0.5;
  Result<std::string> answer = (*llm)->Complete(request);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "Run logrotate.");

  ASSERT_EQ(server.Requests().size(), 1u);
  const ReceivedRequest got = server.Requests()[0];
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.path, "/v1/messages");
  EXPECT_EQ(Header(got, "x-api-key"), "sk-ant-test");
  EXPECT_EQ(Header(got, "anthropic-version"), "2023-06-01");
  EXPECT_EQ(Header(got, "Authorization"), "");
  const nlohmann::json body = BodyJson(got);
  EXPECT_EQ(body["model"], "claude-3-5-haiku-latest");
  EXPECT_EQ(body["max_tokens"], 150);
  EXPECT_EQ(body["system"], request.system);
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"], request.user);
  EXPECT_DOUBLE_EQ(body["temperature"].get<double>(), 0.5);
}

TEST(AnthropicLlmTest, JoinsTextBlocksAndSkipsOthers) {
  LoopbackServer server(Sequence({Json(
      200, MessageAnswer({{{"type", "thinking"}, {"thinking", "the user wants..."}},
                          {{"type", "text"}, {"text", "Postgres writes logs to pg_log; "}},
                          {{"type", "text"}, {"text", "rotate them with log_rotation_age."}}}))}));
  Result<std::unique_ptr<Llm>> llm = Make(server, "sk-ant-test");
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "Postgres writes logs to pg_log; rotate them with log_rotation_age.");
}

TEST(AnthropicLlmTest, RetriesOverloaded529ThenSucceeds) {
  LoopbackServer server(Sequence(
      {Json(529, Overloaded()), Json(200, MessageAnswer({{{"type", "text"}, {"text", "ok"}}}))}));
  Result<std::unique_ptr<Llm>> llm = Make(server, "sk-ant-test");
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "ok");
  EXPECT_EQ(server.Requests().size(), 2u);
}

TEST(AnthropicLlmTest, StaysOverloadedIsUnavailableWithTheApiMessage) {
  LoopbackServer server(Sequence({Json(529, Overloaded())}));
  Result<std::unique_ptr<Llm>> llm = Make(server, "sk-ant-test");
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable);
  EXPECT_TRUE(answer.status().retryable());
  EXPECT_THAT(answer.status().message(),
              HasSubstr("llm: anthropic:claude-3-5-haiku-latest: HTTP 529"));
  EXPECT_THAT(answer.status().message(), HasSubstr("Overloaded"));
  EXPECT_EQ(server.Requests().size(), 3u);
}

TEST(AnthropicLlmTest, BadKeyIsFailedPrecondition) {
  LoopbackServer server(Sequence({Json(
      401, {{"type", "error"},
            {"error", {{"type", "authentication_error"}, {"message", "invalid x-api-key"}}}})}));
  Result<std::unique_ptr<Llm>> llm = Make(server, "sk-ant-wrong");
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(answer.status().message(), HasSubstr("invalid x-api-key"));
}

TEST(AnthropicLlmTest, NeedsAKeyEvenWithABaseUrl) {
  LoopbackServer server(Sequence({Json(200, MessageAnswer(nlohmann::json::array()))}));
  Result<std::unique_ptr<Llm>> llm = Make(server, "");
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(llm.status().message(), HasSubstr("ANTHROPIC_API_KEY"));
}

}  // namespace
}  // namespace engram
