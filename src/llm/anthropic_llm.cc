#include "src/llm/anthropic_llm.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "src/llm/remote_llm.h"

namespace engram {
namespace {

constexpr char kAnthropicBase[] = "https://api.anthropic.com";

}  // namespace

Result<std::unique_ptr<Llm>> AnthropicLlm::Create(const std::string& model,
                                                  const RemoteOptions& options) {
  if (options.api_key.empty()) {
    return InvalidArgument("llm: anthropic: no API key: set ANTHROPIC_API_KEY");
  }
  return std::unique_ptr<Llm>(new AnthropicLlm(model, options, DefaultHttpClient(options)));
}

AnthropicLlm::AnthropicLlm(const std::string& model, const RemoteOptions& options,
                           std::shared_ptr<const HttpClient> client)
    : name_("anthropic:" + model),
      model_(model),
      url_(BaseUrlOr(options.base_url, kAnthropicBase) + "/v1/messages"),
      api_key_(options.api_key),
      client_(std::move(client)) {}

Result<std::string> AnthropicLlm::Complete(const LlmRequest& request) const {
  ENGRAM_RETURN_IF_ERROR(CheckLlmRequest(request, name_));
  nlohmann::json body = {
      {"model", model_},
      {"max_tokens", request.max_tokens},
      {"messages", nlohmann::json::array({{{"role", "user"}, {"content", request.user}}})},
      {"temperature", request.temperature}};
  if (!request.system.empty()) body["system"] = request.system;

  HttpHeaders headers = {{"x-api-key", api_key_}, {"anthropic-version", kAnthropicVersion}};
  const HttpRequest http = JsonPost(url_, body, std::move(headers), {api_key_});
  ENGRAM_ASSIGN_OR_RETURN(const nlohmann::json answer, client_->SendJson(http, "llm: " + name_));

  // {"type":"message","content":[{"type":"text","text":"..."}]}
  return LlmAnswerFromBlocks(JsonMember(answer, "content"), name_);
}

}  // namespace engram
