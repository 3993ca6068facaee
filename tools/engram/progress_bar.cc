#include "tools/engram/progress_bar.h"

namespace engram::cli {

ProgressBar::ProgressBar(std::ostream& err, std::string label, bool enabled)
    : err_(err), label_(std::move(label)), enabled_(enabled) {}

ProgressBar::~ProgressBar() {
  if (drawn_) err_ << "\n";
}

void ProgressBar::Update(size_t done, size_t total) {
  if (!enabled_ || total == 0) return;
  const auto now = std::chrono::steady_clock::now();
  if (drawn_ && done < total && now - last_ < std::chrono::milliseconds(100)) return;
  last_ = now;
  drawn_ = true;
  constexpr size_t kWidth = 30;
  const size_t filled = done * kWidth / total;
  err_ << "\r" << label_ << " [" << std::string(filled, '#') << std::string(kWidth - filled, '.')
       << "] " << done << "/" << total << std::flush;
}

}  // namespace engram::cli
