// BedrockLlm: the Bedrock Converse API, POST {base}/model/{id}/converse,
// signed with SigV4 (through BedrockClient). One request shape for every
// model Bedrock hosts.
//
// Thread-safety: Complete may be called from several threads at once.
#ifndef ENGRAM_SRC_LLM_BEDROCK_LLM_H_
#define ENGRAM_SRC_LLM_BEDROCK_LLM_H_

#include <memory>
#include <string>

#include "engram/clock.h"
#include "engram/llm.h"
#include "engram/remote.h"
#include "src/http/bedrock_client.h"
#include "src/http/http_client.h"

namespace engram {

inline constexpr char kBedrockLlmDefaultModel[] = "anthropic.claude-3-haiku-20240307-v1:0";

class BedrockLlm final : public Llm {
 public:
  // `model` is the Bedrock model id (or inference profile id), ':' and all.
  // `client` empty: libcurl with options' timeouts and retries; `clock`
  // dates the signatures (empty: the system clock). InvalidArgument naming
  // the AWS credential variables when options has no credentials.
  static Result<std::unique_ptr<Llm>> Create(const std::string& model, const RemoteOptions& options,
                                             std::shared_ptr<const HttpClient> client = {},
                                             std::shared_ptr<const Clock> clock = {});

  const std::string& Name() const override { return name_; }
  Result<std::string> Complete(const LlmRequest& request) const override;

 private:
  BedrockLlm(const std::string& model, std::unique_ptr<BedrockClient> bedrock);

  std::string name_;
  std::string model_;
  std::unique_ptr<BedrockClient> bedrock_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_LLM_BEDROCK_LLM_H_
