// ScriptedLlm: answers from a JSONL file instead of a model, for tests and
// offline evaluation (repeatable HyDE runs without a network).
//
// The file holds one {"query": "...", "hypothesis": "..."} object a line;
// other members are ignored, blank lines skipped. Queries and hypotheses
// are trimmed; each query appears once. Complete looks the request's user
// message up, trimmed and otherwise exact (case and spacing count), and
// ignores the system message, token limit and temperature.
//
// Thread-safety: immutable once loaded; Complete may be called from several
// threads at once.
#ifndef ENGRAM_SRC_LLM_SCRIPTED_LLM_H_
#define ENGRAM_SRC_LLM_SCRIPTED_LLM_H_

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>

#include "engram/llm.h"

namespace engram {

class ScriptedLlm final : public Llm {
 public:
  // Reads `path` whole. NotFound when it does not exist; IOError when it
  // cannot be read; InvalidArgument naming the file and line for a line
  // that is not such an object, an empty query or hypothesis, or a query
  // already given (naming both lines).
  static Result<std::unique_ptr<Llm>> Load(const std::string& path);

  // Parses `contents` as the text of the file `path` (which is not read).
  static Result<std::unique_ptr<Llm>> Parse(const std::string& path, std::string_view contents);

  // "scripted:<path as given>".
  const std::string& Name() const override { return name_; }
  // The hypothesis for request.user; NotFound "llm: scripted: no hypothesis
  // for query '...'" when the file has none.
  Result<std::string> Complete(const LlmRequest& request) const override;

  size_t size() const { return hypotheses_.size(); }

 private:
  explicit ScriptedLlm(const std::string& path) : name_("scripted:" + path) {}

  std::string name_;
  std::unordered_map<std::string, std::string> hypotheses_;  // query -> hypothesis
};

}  // namespace engram

#endif  // ENGRAM_SRC_LLM_SCRIPTED_LLM_H_
