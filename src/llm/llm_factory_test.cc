// CreateLlm: providers and default models by spec; creating one makes no
// call, so these need no server.
#include <memory>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "engram/llm.h"

namespace engram {
namespace {

using ::testing::HasSubstr;

LlmOptions WithEveryCredential() {
  LlmOptions options;
  options.remote.api_key = "sk-test";
  options.remote.aws.access_key_id = "AKIDEXAMPLE";
  options.remote.aws.secret_access_key = "secret";
  return options;
}

std::string NameOf(const std::string& spec) {
  Result<std::unique_ptr<Llm>> llm = CreateLlm(spec, WithEveryCredential());
  if (!llm.ok()) return llm.status().ToString();
  return (*llm)->Name();
}

TEST(LlmFactoryTest, EachProviderHasADefaultModel) {
  EXPECT_EQ(NameOf("openai"), "openai:gpt-4o-mini");
  EXPECT_EQ(NameOf("openai:"), "openai:gpt-4o-mini");
  EXPECT_EQ(NameOf("anthropic"), "anthropic:claude-3-5-haiku-latest");
  EXPECT_EQ(NameOf("bedrock"), "bedrock:anthropic.claude-3-haiku-20240307-v1:0");
  EXPECT_EQ(NameOf("ollama"), "ollama:llama3.2");
}

TEST(LlmFactoryTest, ModelIsEverythingAfterTheFirstColon) {
  EXPECT_EQ(NameOf("openai:gpt-4.1-nano"), "openai:gpt-4.1-nano");
  EXPECT_EQ(NameOf("ollama:qwen2.5:7b"), "ollama:qwen2.5:7b");
  EXPECT_EQ(NameOf("bedrock:amazon.nova-micro-v1:0"), "bedrock:amazon.nova-micro-v1:0");
}

TEST(LlmFactoryTest, UnknownProviderIsInvalidArgument) {
  for (const std::string spec : {"", "gemini:pro", "OpenAI", "local"}) {
    Result<std::unique_ptr<Llm>> llm = CreateLlm(spec, WithEveryCredential());
    ASSERT_FALSE(llm.ok()) << spec;
    EXPECT_EQ(llm.status().code(), StatusCode::kInvalidArgument) << spec;
    EXPECT_THAT(llm.status().message(), HasSubstr("unknown provider")) << spec;
  }
}

TEST(LlmFactoryTest, MissingKeysAreNamedByTheirVariable) {
  EXPECT_THAT(CreateLlm("openai", LlmOptions{}).status().message(), HasSubstr("OPENAI_API_KEY"));
  EXPECT_THAT(CreateLlm("anthropic", LlmOptions{}).status().message(),
              HasSubstr("ANTHROPIC_API_KEY"));
  EXPECT_THAT(CreateLlm("bedrock", LlmOptions{}).status().message(),
              HasSubstr("AWS_ACCESS_KEY_ID"));
  EXPECT_TRUE(CreateLlm("ollama", LlmOptions{}).ok()) << "Ollama needs no key";
}

}  // namespace
}  // namespace engram
