// What the LLM providers behind an HTTP API share: the client they send
// through, their endpoint, the JSON request and the reading of the answer.
//
// Thread-safety: pure functions.
#ifndef ENGRAM_SRC_LLM_REMOTE_LLM_H_
#define ENGRAM_SRC_LLM_REMOTE_LLM_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/llm.h"
#include "engram/remote.h"
#include "engram/status.h"
#include "src/http/http_client.h"
#include "src/http/json_request.h"

namespace engram {

// InvalidArgument "llm: <name>: ..." for a request no API would take: a
// blank user message, max_tokens 0, a negative or non-finite temperature.
Status CheckLlmRequest(const LlmRequest& request, const std::string& name);

// `text` without leading and trailing whitespace.
std::string TrimLlmText(std::string_view text);

// The member `key` of `object`, or null when `object` is not a JSON object
// or has no such member.
const nlohmann::json* JsonMember(const nlohmann::json& object, std::string_view key);

// `text` trimmed, when it is a string with something in it; otherwise
// Unavailable "llm: <name>: answer held no text".
Result<std::string> LlmAnswerText(const nlohmann::json* text, const std::string& name);

// The "text" of every block of the content array `blocks` (Anthropic's
// [{"type":"text","text":..}], Bedrock's [{"text":..}]) joined, trimmed.
// Blocks of another type (thinking, tool use) are skipped. Unavailable
// "llm: <name>: answer held no text" when no block holds text.
Result<std::string> LlmAnswerFromBlocks(const nlohmann::json* blocks, const std::string& name);

}  // namespace engram

#endif  // ENGRAM_SRC_LLM_REMOTE_LLM_H_
