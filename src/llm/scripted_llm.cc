#include "src/llm/scripted_llm.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <utility>

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"
#include "src/llm/remote_llm.h"

namespace engram {
namespace {

// Queries quoted in errors are cut to this many bytes (at a UTF-8
// boundary), so a long one does not flood the log.
constexpr size_t kQuotedQueryMaxBytes = 200;

std::string Quote(std::string_view text) {
  if (text.size() <= kQuotedQueryMaxBytes) return "'" + std::string(text) + "'";
  size_t cut = kQuotedQueryMaxBytes;
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xC0) == 0x80) --cut;
  return "'" + std::string(text.substr(0, cut)) + "...'";
}

// The trimmed string member `key` of `entry`, or empty when it is missing,
// not a string or blank.
std::string TrimmedMember(const nlohmann::json& entry, std::string_view key) {
  const nlohmann::json* value = JsonMember(entry, key);
  if (value == nullptr || !value->is_string()) return "";
  return TrimLlmText(value->get_ref<const std::string&>());
}

}  // namespace

Result<std::unique_ptr<Llm>> ScriptedLlm::Load(const std::string& path) {
  std::error_code ec;
  const auto status = std::filesystem::status(path, ec);
  if (!std::filesystem::exists(status)) {
    return NotFound("llm: scripted: no file '" + path + "'");
  }
  if (std::filesystem::is_directory(status)) {
    return InvalidArgument("llm: scripted: '" + path + "' is a directory, not a JSONL file");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) return IOError("llm: scripted: cannot open '" + path + "'");
  std::ostringstream contents;
  contents << in.rdbuf();
  if (in.bad()) return IOError("llm: scripted: cannot read '" + path + "'");
  return Parse(path, contents.str());
}

Result<std::unique_ptr<Llm>> ScriptedLlm::Parse(const std::string& path,
                                                std::string_view contents) {
  std::unique_ptr<ScriptedLlm> llm(new ScriptedLlm(path));
  std::unordered_map<std::string, size_t> line_of;  // query -> its line
  size_t line_number = 0;
  while (!contents.empty()) {
    const size_t newline = contents.find('\n');
    const std::string_view line = contents.substr(0, newline);
    contents.remove_prefix(newline == std::string_view::npos ? contents.size() : newline + 1);
    ++line_number;
    if (TrimLlmText(line).empty()) continue;

    const std::string where = "llm: scripted: '" + path + "' line " + std::to_string(line_number);
    ENGRAM_ASSIGN_OR_RETURN(nlohmann::json entry, ParseJson(line, where));
    if (!entry.is_object()) {
      return InvalidArgument(where + ": expected an object {\"query\": ..., \"hypothesis\": ...}");
    }
    std::string query = TrimmedMember(entry, "query");
    std::string hypothesis = TrimmedMember(entry, "hypothesis");
    if (query.empty()) return InvalidArgument(where + ": \"query\" is missing or not text");
    if (hypothesis.empty()) {
      return InvalidArgument(where + ": \"hypothesis\" is missing or not text");
    }
    const auto [it, inserted] = line_of.emplace(query, line_number);
    if (!inserted) {
      return InvalidArgument(where + ": query " + Quote(query) + " is already on line " +
                             std::to_string(it->second));
    }
    llm->hypotheses_.emplace(std::move(query), std::move(hypothesis));
  }
  return std::unique_ptr<Llm>(std::move(llm));
}

Result<std::string> ScriptedLlm::Complete(const LlmRequest& request) const {
  const std::string query = TrimLlmText(request.user);
  const auto it = hypotheses_.find(query);
  if (it == hypotheses_.end()) {
    return NotFound("llm: scripted: no hypothesis for query " + Quote(query));
  }
  return it->second;
}

}  // namespace engram
