#include "src/llm/ollama_llm.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "src/llm/remote_llm.h"

namespace engram {
namespace {

constexpr char kOllamaBase[] = "http://localhost:11434";

}  // namespace

Result<std::unique_ptr<Llm>> OllamaLlm::Create(const std::string& model,
                                               const RemoteOptions& options) {
  return std::unique_ptr<Llm>(new OllamaLlm(model, options, DefaultHttpClient(options)));
}

OllamaLlm::OllamaLlm(const std::string& model, const RemoteOptions& options,
                     std::shared_ptr<const HttpClient> client)
    : name_("ollama:" + model),
      model_(model),
      url_(BaseUrlOr(options.base_url, kOllamaBase) + "/api/chat"),
      api_key_(options.api_key),
      client_(std::move(client)) {}

Result<std::string> OllamaLlm::Complete(const LlmRequest& request) const {
  ENGRAM_RETURN_IF_ERROR(CheckLlmRequest(request, name_));
  nlohmann::json messages = nlohmann::json::array();
  if (!request.system.empty()) {
    messages.push_back({{"role", "system"}, {"content", request.system}});
  }
  messages.push_back({{"role", "user"}, {"content", request.user}});
  const nlohmann::json body = {
      {"model", model_},
      {"messages", std::move(messages)},
      {"stream", false},
      {"options", {{"num_predict", request.max_tokens}, {"temperature", request.temperature}}}};

  const HttpRequest http = BearerJsonPost(url_, api_key_, body);
  ENGRAM_ASSIGN_OR_RETURN(const nlohmann::json answer, client_->SendJson(http, "llm: " + name_));

  // {"message":{"role":"assistant","content":"..."},"done":true}
  const nlohmann::json* message = JsonMember(answer, "message");
  return LlmAnswerText(message == nullptr ? nullptr : JsonMember(*message, "content"), name_);
}

}  // namespace engram
