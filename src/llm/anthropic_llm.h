// AnthropicLlm: the Messages API, POST {base}/v1/messages with the
// x-api-key and anthropic-version headers. Anthropic's 529
// overloaded_error is a 5xx, so it is retried like any other.
//
// Thread-safety: Complete may be called from several threads at once.
#ifndef ENGRAM_SRC_LLM_ANTHROPIC_LLM_H_
#define ENGRAM_SRC_LLM_ANTHROPIC_LLM_H_

#include <memory>
#include <string>

#include "engram/llm.h"
#include "engram/remote.h"
#include "src/http/http_client.h"

namespace engram {

inline constexpr char kAnthropicLlmDefaultModel[] = "claude-3-5-haiku-latest";
// The API version every request pins (the only one Anthropic has issued
// for the Messages API).
inline constexpr char kAnthropicVersion[] = "2023-06-01";

class AnthropicLlm final : public Llm {
 public:
  // InvalidArgument naming ANTHROPIC_API_KEY when options has no key.
  static Result<std::unique_ptr<Llm>> Create(const std::string& model,
                                             const RemoteOptions& options);

  // Sends through `client`, which must not be null; no checks.
  AnthropicLlm(const std::string& model, const RemoteOptions& options,
               std::shared_ptr<const HttpClient> client);

  const std::string& Name() const override { return name_; }
  Result<std::string> Complete(const LlmRequest& request) const override;

 private:
  std::string name_;
  std::string model_;
  std::string url_;
  std::string api_key_;
  std::shared_ptr<const HttpClient> client_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_LLM_ANTHROPIC_LLM_H_
