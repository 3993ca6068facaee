// An Llm for tests, behind the Llm seam: TableLlm answers from a table keyed
// by the user message, or fails with a chosen status, and records every
// request it gets. Thread-safe.
#ifndef ENGRAM_TESTS_TEST_LLMS_H_
#define ENGRAM_TESTS_TEST_LLMS_H_

#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engram/llm.h"

namespace engram::testing {

class TableLlm final : public Llm {
 public:
  explicit TableLlm(std::string name = "table:test") : name_(std::move(name)) {}
  const std::string& Name() const override { return name_; }
  Result<std::string> Complete(const LlmRequest& request) const override {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
    if (!failure_.ok()) return failure_;
    auto it = answers_.find(request.user);
    if (it == answers_.end()) return NotFound("table llm: no answer for '" + request.user + "'");
    return it->second;
  }
  void Answer(const std::string& query, const std::string& answer) {
    std::lock_guard lock(mutex_);
    answers_[query] = answer;
  }
  // Every call fails with `status` (OK: answer again).
  void Fail(Status status) {
    std::lock_guard lock(mutex_);
    failure_ = std::move(status);
  }
  std::vector<LlmRequest> requests() const {
    std::lock_guard lock(mutex_);
    return requests_;
  }

 private:
  std::string name_;
  mutable std::mutex mutex_;
  std::map<std::string, std::string> answers_;
  Status failure_;
  mutable std::vector<LlmRequest> requests_;
};

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_TEST_LLMS_H_
