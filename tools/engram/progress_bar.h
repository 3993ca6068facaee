// A one-line progress bar on standard error, drawn only on a terminal.
#ifndef ENGRAM_TOOLS_ENGRAM_PROGRESS_BAR_H_
#define ENGRAM_TOOLS_ENGRAM_PROGRESS_BAR_H_

#include <chrono>
#include <cstddef>
#include <ostream>
#include <string>

namespace engram::cli {

class ProgressBar {
 public:
  // Draws nothing unless `enabled` (callers pass IsTerminal(2)).
  ProgressBar(std::ostream& err, std::string label, bool enabled);
  ~ProgressBar();

  // Redraws at most ten times a second, and always at done == total.
  void Update(size_t done, size_t total);

 private:
  std::ostream& err_;
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point last_;
};

}  // namespace engram::cli

#endif  // ENGRAM_TOOLS_ENGRAM_PROGRESS_BAR_H_
