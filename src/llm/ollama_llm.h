// OllamaLlm: a local Ollama server's chat API, POST {base}/api/chat, not
// streamed. No key: Ollama has no authentication of its own.
//
// Thread-safety: Complete may be called from several threads at once.
#ifndef ENGRAM_SRC_LLM_OLLAMA_LLM_H_
#define ENGRAM_SRC_LLM_OLLAMA_LLM_H_

#include <memory>
#include <string>

#include "engram/llm.h"
#include "engram/remote.h"
#include "src/http/http_client.h"

namespace engram {

inline constexpr char kOllamaLlmDefaultModel[] = "llama3.2";

class OllamaLlm final : public Llm {
 public:
  static Result<std::unique_ptr<Llm>> Create(const std::string& model,
                                             const RemoteOptions& options);

  // Sends through `client`, which must not be null.
  OllamaLlm(const std::string& model, const RemoteOptions& options,
            std::shared_ptr<const HttpClient> client);

  const std::string& Name() const override { return name_; }
  Result<std::string> Complete(const LlmRequest& request) const override;

 private:
  std::string name_;
  std::string model_;
  std::string url_;
  std::string api_key_;  // sent as a Bearer token when set (a proxy in front)
  std::shared_ptr<const HttpClient> client_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_LLM_OLLAMA_LLM_H_
