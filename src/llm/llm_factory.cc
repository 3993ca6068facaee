// CreateLlm: spec string -> provider (include/engram/llm.h).
#include <string>

#include "engram/llm.h"
#include "src/llm/anthropic_llm.h"
#include "src/llm/bedrock_llm.h"
#include "src/llm/ollama_llm.h"
#include "src/llm/openai_llm.h"
#include "src/llm/scripted_llm.h"

namespace engram {

Result<std::unique_ptr<Llm>> CreateLlm(const std::string& spec, const LlmOptions& options) {
  // Split at the first ':' only: Bedrock model ids ("...-v1:0") and paths
  // may hold more.
  const size_t colon = spec.find(':');
  const std::string provider = spec.substr(0, colon);
  const std::string rest = colon == std::string::npos ? "" : spec.substr(colon + 1);
  const auto model_or = [&rest](const char* fallback) {
    return rest.empty() ? std::string(fallback) : rest;
  };
  if (provider == "openai")
    return OpenAiLlm::Create(model_or(kOpenAiLlmDefaultModel), options.remote);
  if (provider == "anthropic") {
    return AnthropicLlm::Create(model_or(kAnthropicLlmDefaultModel), options.remote);
  }
  if (provider == "bedrock") {
    return BedrockLlm::Create(model_or(kBedrockLlmDefaultModel), options.remote);
  }
  if (provider == "ollama")
    return OllamaLlm::Create(model_or(kOllamaLlmDefaultModel), options.remote);
  if (provider == "scripted") {
    if (rest.empty()) {
      return InvalidArgument("llm: spec '" + spec + "': expected scripted:FILE");
    }
    return ScriptedLlm::Load(rest);
  }
  return InvalidArgument("llm: spec '" + spec +
                         "': unknown provider (expected openai, anthropic, bedrock, ollama or "
                         "scripted:FILE)");
}

}  // namespace engram
