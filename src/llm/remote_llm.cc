#include "src/llm/remote_llm.h"

#include <cmath>
#include <utility>

namespace engram {

Status CheckLlmRequest(const LlmRequest& request, const std::string& name) {
  if (TrimLlmText(request.user).empty()) {
    return InvalidArgument("llm: " + name + ": the user message is empty");
  }
  if (request.max_tokens == 0) {
    return InvalidArgument("llm: " + name + ": max_tokens must be at least 1");
  }
  if (!std::isfinite(request.temperature) || request.temperature < 0) {
    return InvalidArgument("llm: " + name + ": temperature must be a number >= 0");
  }
  return Status::OK();
}

std::string TrimLlmText(std::string_view text) {
  constexpr std::string_view kSpace = " \t\r\n\f\v";
  const size_t first = text.find_first_not_of(kSpace);
  if (first == std::string_view::npos) return "";
  const size_t last = text.find_last_not_of(kSpace);
  return std::string(text.substr(first, last - first + 1));
}

const nlohmann::json* JsonMember(const nlohmann::json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

namespace {

Status NoText(const std::string& name) {
  return Unavailable("llm: " + name + ": answer held no text");
}

}  // namespace

Result<std::string> LlmAnswerText(const nlohmann::json* text, const std::string& name) {
  if (text == nullptr || !text->is_string()) return NoText(name);
  std::string trimmed = TrimLlmText(text->get_ref<const std::string&>());
  if (trimmed.empty()) return NoText(name);
  return trimmed;
}

Result<std::string> LlmAnswerFromBlocks(const nlohmann::json* blocks, const std::string& name) {
  if (blocks == nullptr || !blocks->is_array()) return NoText(name);
  std::string joined;
  for (const nlohmann::json& block : *blocks) {
    const nlohmann::json* type = JsonMember(block, "type");
    if (type != nullptr && *type != "text") continue;
    const nlohmann::json* text = JsonMember(block, "text");
    if (text != nullptr && text->is_string()) joined += text->get_ref<const std::string&>();
  }
  std::string trimmed = TrimLlmText(joined);
  if (trimmed.empty()) return NoText(name);
  return trimmed;
}

}  // namespace engram
