// Llm: a language model that writes text, for HyDE (DESIGN §5).
//
// Providers are chosen by a spec string "<provider>[:<model>]":
//   openai[:MODEL]     chat completions, POST {base}/v1/chat/completions;
//                      base settable for OpenAI-compatible servers
//                      (default model gpt-4o-mini)
//   anthropic[:MODEL]  messages, POST {base}/v1/messages, x-api-key and
//                      anthropic-version headers (default claude-3-5-haiku-latest)
//   bedrock[:MODEL]    Converse, POST {base}/model/{id}/converse, SigV4
//                      (default anthropic.claude-3-haiku-20240307-v1:0)
//   ollama[:MODEL]     POST {base}/api/chat, not streamed (default llama3.2)
//   scripted:FILE      answers from a JSONL file of {"query": ..,
//                      "hypothesis": ..} lines, keyed by the user message
//                      (tests and offline evaluation); NotFound for a query
//                      the file does not hold
//
// Thread-safety: Complete may be called from several threads at once.
#ifndef ENGRAM_LLM_H_
#define ENGRAM_LLM_H_

#include <cstddef>
#include <memory>
#include <string>

#include "engram/export.h"
#include "engram/remote.h"
#include "engram/status.h"

namespace engram {

struct LlmRequest {
  std::string system;  // instructions
  std::string user;    // the user's message (for HyDE: the query itself)
  // Most tokens to write. Default 200.
  size_t max_tokens = 200;
  // Sampling temperature. Default 0 (most likely answer, repeatable).
  double temperature = 0.0;
};

class ENGRAM_EXPORT Llm {
 public:
  virtual ~Llm() = default;
  // "<provider>:<model>", e.g. "openai:gpt-4o-mini"; keys the hypothesis
  // cache.
  virtual const std::string& Name() const = 0;
  // The model's answer, trimmed. Errors: Unavailable (server down, 429 or
  // 5xx after retries, garbage answer), DeadlineExceeded, FailedPrecondition
  // (401/403), InvalidArgument (another 4xx or a blank user message). Never
  // part of a transfer; an answer the model stopped at max_tokens is
  // returned as written.
  virtual Result<std::string> Complete(const LlmRequest& request) const = 0;
};

struct LlmOptions {
  RemoteOptions remote;
};

// Builds the LLM a spec names. InvalidArgument for an unknown provider or a
// missing API key (named by its variable); NotFound or InvalidArgument for
// a scripted file that is missing or malformed (with the line number).
ENGRAM_EXPORT Result<std::unique_ptr<Llm>> CreateLlm(const std::string& spec,
                                                     const LlmOptions& options);

}  // namespace engram

#endif  // ENGRAM_LLM_H_
