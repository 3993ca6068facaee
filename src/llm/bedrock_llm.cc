#include "src/llm/bedrock_llm.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "src/llm/remote_llm.h"

namespace engram {

Result<std::unique_ptr<Llm>> BedrockLlm::Create(const std::string& model,
                                                const RemoteOptions& options,
                                                std::shared_ptr<const HttpClient> client,
                                                std::shared_ptr<const Clock> clock) {
  if (options.aws.empty()) {
    return InvalidArgument(
        "llm: bedrock: no AWS credentials: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, "
        "or AWS_PROFILE with a shared credentials file");
  }
  if (!client) client = DefaultHttpClient(options);
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<BedrockClient> bedrock,
                          BedrockClient::Create(std::move(client), options, std::move(clock)));
  return std::unique_ptr<Llm>(new BedrockLlm(model, std::move(bedrock)));
}

BedrockLlm::BedrockLlm(const std::string& model, std::unique_ptr<BedrockClient> bedrock)
    : name_("bedrock:" + model), model_(model), bedrock_(std::move(bedrock)) {}

Result<std::string> BedrockLlm::Complete(const LlmRequest& request) const {
  ENGRAM_RETURN_IF_ERROR(CheckLlmRequest(request, name_));
  nlohmann::json body = {
      {"messages",
       nlohmann::json::array(
           {{{"role", "user"}, {"content", nlohmann::json::array({{{"text", request.user}}})}}})},
      {"inferenceConfig",
       {{"maxTokens", request.max_tokens}, {"temperature", request.temperature}}}};
  if (!request.system.empty()) {
    body["system"] = nlohmann::json::array({{{"text", request.system}}});
  }
  ENGRAM_ASSIGN_OR_RETURN(const nlohmann::json answer,
                          bedrock_->Post(model_, "converse", body, "llm: " + name_));

  // {"output":{"message":{"role":"assistant","content":[{"text":"..."}]}}}
  const nlohmann::json* output = JsonMember(answer, "output");
  const nlohmann::json* message = output == nullptr ? nullptr : JsonMember(*output, "message");
  return LlmAnswerFromBlocks(message == nullptr ? nullptr : JsonMember(*message, "content"), name_);
}

}  // namespace engram
