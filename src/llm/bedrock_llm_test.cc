#include "src/llm/bedrock_llm.h"

#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "src/llm/llm_test_util.h"
#include "src/llm/remote_llm.h"

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
using ::testing::StartsWith;

constexpr Timestamp kNow = 1704164645000;  // 2024-01-02T03:04:05Z

nlohmann::json ConverseAnswer(const std::string& text) {
  return {{"output", {{"message", {{"role", "assistant"}, {"content", {{{"text", text}}}}}}}},
          {"stopReason", "end_turn"},
          {"usage", {{"inputTokens", 30}, {"outputTokens", 12}, {"totalTokens", 42}}}};
}

LlmOptions WithCredentials(const LoopbackServer& server) {
  LlmOptions options = LoopbackOptions(server.BaseUrl());
  options.remote.aws_region = "eu-west-1";
  options.remote.aws.access_key_id = "AKIDEXAMPLE";
  options.remote.aws.secret_access_key = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
  options.remote.aws.session_token = "FwoGZXIvYXdzEXAMPLE";
  return options;
}

TEST(BedrockLlmTest, SendsASignedConverseRequest) {
  LoopbackServer server(Sequence({Json(200, ConverseAnswer(" Rotate with logrotate. "))}));
  const LlmOptions options = WithCredentials(server);
  Result<std::unique_ptr<Llm>> llm =
      BedrockLlm::Create(kBedrockLlmDefaultModel, options.remote, DefaultHttpClient(options.remote),
                         std::make_shared<ManualClock>(kNow));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  EXPECT_EQ((*llm)->Name(), "bedrock:anthropic.claude-3-haiku-20240307-v1:0");
  LlmRequest request = HydeRequest();
  request.max_tokens = 180;
  request.temperature = 0.2;
  Result<std::string> answer = (*llm)->Complete(request);
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "Rotate with logrotate.");

  ASSERT_EQ(server.Requests().size(), 1u);
  const ReceivedRequest got = server.Requests()[0];
  EXPECT_EQ(got.method, "POST");
  EXPECT_EQ(got.path, "/model/anthropic.claude-3-haiku-20240307-v1%3A0/converse");
  EXPECT_THAT(Header(got, "Authorization"),
              StartsWith("AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE/20240102/eu-west-1/bedrock/"
                         "aws4_request, SignedHeaders="));
  EXPECT_THAT(Header(got, "Authorization"), HasSubstr("Signature="));
  EXPECT_EQ(Header(got, "X-Amz-Date"), "20240102T030405Z");
  EXPECT_EQ(Header(got, "X-Amz-Security-Token"), "FwoGZXIvYXdzEXAMPLE");
  const nlohmann::json body = BodyJson(got);
  ASSERT_EQ(body["messages"].size(), 1u);
  EXPECT_EQ(body["messages"][0]["role"], "user");
  EXPECT_EQ(body["messages"][0]["content"][0]["text"], request.user);
  EXPECT_EQ(body["system"][0]["text"], request.system);
  EXPECT_EQ(body["inferenceConfig"]["maxTokens"], 180);
  EXPECT_DOUBLE_EQ(body["inferenceConfig"]["temperature"].get<double>(), 0.2);
  EXPECT_FALSE(body.contains("model")) << "the model travels in the path";
}

TEST(BedrockLlmTest, SpecKeepsEveryColonOfTheModelId) {
  LoopbackServer server(Sequence({Json(200, ConverseAnswer("ok"))}));
  Result<std::unique_ptr<Llm>> llm =
      CreateLlm("bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0", WithCredentials(server));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  EXPECT_EQ((*llm)->Name(), "bedrock:us.anthropic.claude-3-5-haiku-20241022-v1:0");
  ASSERT_TRUE((*llm)->Complete(HydeRequest()).ok());
  EXPECT_EQ(server.Requests().at(0).path,
            "/model/us.anthropic.claude-3-5-haiku-20241022-v1%3A0/converse");
}

TEST(BedrockLlmTest, ThrottlingNamesTheErrorTypeAndIsUnavailable) {
  LoopbackServer server(Sequence(
      {Json(429, {{"message", "Too many requests, please wait before trying again."}},
            {{"x-amzn-ErrorType",
              "ThrottlingException:http://internal.amazon.com/coral/com.amazon.bedrock/"}})}));
  Result<std::unique_ptr<Llm>> llm = CreateLlm("bedrock", WithCredentials(server));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(answer.status().message(), HasSubstr("ThrottlingException"));
  EXPECT_THAT(answer.status().message(), HasSubstr("Too many requests"));
  EXPECT_EQ(server.Requests().size(), 3u);
}

TEST(BedrockLlmTest, ValidationErrorIsInvalidArgument) {
  LoopbackServer server(Sequence(
      {Json(400, {{"message", "The provided model identifier is invalid."}},
            {{"x-amzn-ErrorType",
              "ValidationException:http://internal.amazon.com/coral/com.amazon.bedrock/"}})}));
  Result<std::unique_ptr<Llm>> llm = CreateLlm("bedrock:nope", WithCredentials(server));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(answer.status().message(), HasSubstr("ValidationException"));
  EXPECT_THAT(answer.status().message(), HasSubstr("model identifier is invalid"));
}

TEST(BedrockLlmTest, AccessDeniedIsFailedPrecondition) {
  LoopbackServer server(Sequence(
      {Json(403, {{"message", "You don't have access to the model with the specified model ID."}},
            {{"x-amzn-ErrorType",
              "AccessDeniedException:http://internal.amazon.com/coral/com.amazon.bedrock/"}})}));
  Result<std::unique_ptr<Llm>> llm = CreateLlm("bedrock", WithCredentials(server));
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(HydeRequest());
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_THAT(answer.status().message(), HasSubstr("AccessDeniedException"));
}

TEST(BedrockLlmTest, NeedsCredentials) {
  LlmOptions options;
  options.remote.aws.access_key_id = "AKIDEXAMPLE";
  Result<std::unique_ptr<Llm>> llm = CreateLlm("bedrock", options);
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(llm.status().message(), HasSubstr("AWS_SECRET_ACCESS_KEY"));
}

}  // namespace
}  // namespace engram
