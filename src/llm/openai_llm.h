// OpenAiLlm: chat completions, POST {base}/v1/chat/completions, on OpenAI
// or any OpenAI-compatible server (vLLM, llama.cpp, LM Studio, ...).
//
// Token limit: api.openai.com gets "max_completion_tokens", every other
// server "max_tokens". OpenAI deprecated "max_tokens" for chat completions
// and its reasoning models refuse it, while compatible servers have long
// known only "max_tokens" (and some reject unknown fields), so each gets
// the name it is sure to understand. A base URL ending in "/v1" is taken
// as the API root (as OpenAI's SDKs expect), so "/v1" is not doubled.
//
// Reasoning models (o1, o3, ...) do not fit HyDE: they refuse a temperature
// other than 1 and spend the token budget on hidden reasoning, so the
// answer comes back empty (Unavailable "answer held no text").
//
// Thread-safety: Complete may be called from several threads at once.
#ifndef ENGRAM_SRC_LLM_OPENAI_LLM_H_
#define ENGRAM_SRC_LLM_OPENAI_LLM_H_

#include <memory>
#include <string>

#include "engram/llm.h"
#include "engram/remote.h"
#include "src/http/http_client.h"

namespace engram {

inline constexpr char kOpenAiLlmDefaultModel[] = "gpt-4o-mini";

class OpenAiLlm final : public Llm {
 public:
  // InvalidArgument naming OPENAI_API_KEY when options has no key and no
  // base URL (a compatible server may need none).
  static Result<std::unique_ptr<Llm>> Create(const std::string& model,
                                             const RemoteOptions& options);

  // Sends through `client`, which must not be null; no checks.
  OpenAiLlm(const std::string& model, const RemoteOptions& options,
            std::shared_ptr<const HttpClient> client);

  const std::string& Name() const override { return name_; }
  Result<std::string> Complete(const LlmRequest& request) const override;

 private:
  std::string name_;
  std::string model_;
  std::string url_;
  std::string api_key_;
  bool official_api_;  // api.openai.com: max_completion_tokens
  std::shared_ptr<const HttpClient> client_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_LLM_OPENAI_LLM_H_
