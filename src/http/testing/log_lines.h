// LogLines: collects the lines a provider writes to RemoteOptions::log, for
// tests that check what is (and is not) logged. Thread-safe; Sink() may be
// copied into as many options as needed while the LogLines lives.
#ifndef ENGRAM_SRC_HTTP_TESTING_LOG_LINES_H_
#define ENGRAM_SRC_HTTP_TESTING_LOG_LINES_H_

#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

namespace engram::testing {

class LogLines {
 public:
  void Add(std::string_view line) {
    std::lock_guard lock(mutex_);
    lines_.emplace_back(line);
  }
  std::function<void(std::string_view)> Sink() {
    return [this](std::string_view line) { Add(line); };
  }
  std::vector<std::string> Lines() const {
    std::lock_guard lock(mutex_);
    return lines_;
  }

 private:
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
};

}  // namespace engram::testing

#endif  // ENGRAM_SRC_HTTP_TESTING_LOG_LINES_H_
