#include "src/llm/ollama_llm.h"

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

nlohmann::json ChatAnswer(const std::string& text) {
  return {{"model", "llama3.2"},
          {"created_at", "2024-01-02T03:04:05.678Z"},
          {"message", {{"role", "assistant"}, {"content", text}}},
          {"done_reason", "stop"},
          {"done", true}};
}

TEST(OllamaLlmTest, SendsAChatRequestNotStreamed) {
  LoopbackServer server(Sequence({Json(200, ChatAnswer("\nUse logrotate.\n"))}));
  Result<std::unique_ptr<Llm>> llm = CreateLlm("ollama", LoopbackOptions(server.BaseUrl()));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  EXPECT_EQ((*llm)->Name(), "ollama:llama3.2");
  LlmRequest request = HydeRequest();
  request.max_tokens = 64;
  request.temperature = 0.7;
  Result<std::string> answer = (*llm)->Complete(request);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "Use logrotate.");

  ASSERT_EQ(server.Requests().size(), 1u);
  const ReceivedRequest got = server.Requests()[0];
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.path, "/api/chat");
  EXPECT_EQ(Header(got, "Authorization"), "");
  const nlohmann::json body = BodyJson(got);
  EXPECT_EQ(body["model"], "llama3.2");
  EXPECT_EQ(body["stream"], false);
  ASSERT_EQ(body["messages"].size(), 2u);
  EXPECT_EQ(body["messages"][0]["role"], "system");
  EXPECT_EQ(body["messages"][0]["content"], request.system);
  EXPECT_EQ(body["messages"][1]["role"], "user");
  EXPECT_EQ(body["messages"][1]["content"], request.user);
  EXPECT_EQ(body["options"]["num_predict"], 64);
  EXPECT_DOUBLE_EQ(body["options"]["temperature"].get<double>(), 0.7);
}

TEST(OllamaLlmTest, MissingModelIsInvalidArgumentWithOllamasMessage) {
  LoopbackServer server(
      Sequence({Json(404, {{"error", "model \"qwen9\" not found, try pulling it first"}})}));
  Result<std::unique_ptr<Llm>> llm = CreateLlm("ollama:qwen9", LoopbackOptions(server.BaseUrl()));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(answer.status().message(), HasSubstr("llm: ollama:qwen9: HTTP 404"));
  EXPECT_THAT(answer.status().message(), HasSubstr("try pulling it first"));
}

TEST(OllamaLlmTest, ServerErrorIsRetriedAndNamed) {
  LoopbackServer server(Sequence({Json(500, {{"error", "llama runner process has terminated"}})}));
  Result<std::unique_ptr<Llm>> llm = CreateLlm("ollama", LoopbackOptions(server.BaseUrl()));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(answer.status().message(), HasSubstr("llama runner process has terminated"));
  EXPECT_EQ(server.Requests().size(), 3u);
}

TEST(OllamaLlmTest, KeyForAProxyTravelsAsBearer) {
  LoopbackServer server(Sequence({Json(200, ChatAnswer("ok"))}));
  LlmOptions options = LoopbackOptions(server.BaseUrl());
  options.remote.api_key = "proxy-token";
  Result<std::unique_ptr<Llm>> llm = CreateLlm("ollama", options);
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  ASSERT_TRUE((*llm)->Complete(HydeRequest()).ok());
  EXPECT_EQ(Header(server.Requests().at(0), "Authorization"), "Bearer proxy-token");
}

}  // namespace
}  // namespace engram
