#include "src/llm/openai_llm.h"

#include <utility>

#include <nlohmann/json.hpp>

#include "src/llm/remote_llm.h"

namespace engram {
namespace {

constexpr char kOpenAiBase[] = "https://api.openai.com";
constexpr char kOpenAiHost[] = "api.openai.com";

// True when `base` names OpenAI's own API host, whatever scheme or port.
bool IsOfficialApi(const std::string& base) {
  const size_t scheme = base.find("://");
  const size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  const size_t end = base.find_first_of(":/", start);
  return base.substr(start, end == std::string::npos ? std::string::npos : end - start) ==
         kOpenAiHost;
}

std::string CompletionsUrl(const std::string& base) {
  return base + (base.ends_with("/v1") ? "" : "/v1") + "/chat/completions";
}

}  // namespace

Result<std::unique_ptr<Llm>> OpenAiLlm::Create(const std::string& model,
                                               const RemoteOptions& options) {
  if (options.api_key.empty() && options.base_url.empty()) {
    return InvalidArgument(
        "llm: openai: no API key: set OPENAI_API_KEY (or a base URL for a compatible server)");
  }
  return std::unique_ptr<Llm>(new OpenAiLlm(model, options, DefaultHttpClient(options)));
}

OpenAiLlm::OpenAiLlm(const std::string& model, const RemoteOptions& options,
                     std::shared_ptr<const HttpClient> client)
    : name_("openai:" + model),
      model_(model),
      api_key_(options.api_key),
      client_(std::move(client)) {
  const std::string base = BaseUrlOr(options.base_url, kOpenAiBase);
  url_ = CompletionsUrl(base);
  official_api_ = IsOfficialApi(base);
}

Result<std::string> OpenAiLlm::Complete(const LlmRequest& request) const {
  ENGRAM_RETURN_IF_ERROR(CheckLlmRequest(request, name_));
  nlohmann::json messages = nlohmann::json::array();
  if (!request.system.empty()) {
    messages.push_back({{"role", "system"}, {"content", request.system}});
  }
  messages.push_back({{"role", "user"}, {"content", request.user}});
  nlohmann::json body = {
      {"model", model_}, {"messages", std::move(messages)}, {"temperature", request.temperature}};
  body[official_api_ ? "max_completion_tokens" : "max_tokens"] = request.max_tokens;

  const HttpRequest http = BearerJsonPost(url_, api_key_, body);
  ENGRAM_ASSIGN_OR_RETURN(const nlohmann::json answer, client_->SendJson(http, "llm: " + name_));

  // {"choices":[{"message":{"role":"assistant","content":"..."}}]}
  const nlohmann::json* choices = JsonMember(answer, "choices");
  const nlohmann::json* message = nullptr;
  if (choices != nullptr && choices->is_array() && !choices->empty()) {
    message = JsonMember(choices->front(), "message");
  }
  return LlmAnswerText(message == nullptr ? nullptr : JsonMember(*message, "content"), name_);
}

}  // namespace engram
