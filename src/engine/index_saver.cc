#include "src/engine/index_saver.h"

#include <algorithm>
#include <utility>

namespace engram {

IndexSaver::IndexSaver(Save save, int delay_ms)
    : save_(std::move(save)), delay_(std::chrono::milliseconds(delay_ms)) {}

IndexSaver::~IndexSaver() { Stop(); }

void IndexSaver::Changed(const std::string& scope) {
  std::lock_guard lock(mutex_);
  // A scope already waiting keeps the due time of its first change.
  const bool added = unsaved_.try_emplace(scope, Clock::now() + delay_).second;
  if (stop_) return;
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  if (added) wake_.notify_one();
}

void IndexSaver::Stop() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
}

Status IndexSaver::SaveAllNow() {
  std::unique_lock lock(mutex_);
  std::map<std::string, Clock::time_point> all;
  all.swap(unsaved_);
  Status first = Status::OK();
  for (const auto& [scope, due] : all) {
    Status saved = SaveOne(lock, scope);
    if (first.ok() && !saved.ok()) first = std::move(saved);
  }
  return first;
}

std::optional<std::string> IndexSaver::TakeProblem() {
  std::lock_guard lock(mutex_);
  if (problem_.empty()) return std::nullopt;
  return std::exchange(problem_, std::string());
}

size_t IndexSaver::Pending() const {
  std::lock_guard lock(mutex_);
  return unsaved_.size();
}

Status IndexSaver::SaveOne(std::unique_lock<std::mutex>& lock, const std::string& scope) {
  save_done_.wait(lock, [this] { return !saving_; });
  saving_ = true;
  lock.unlock();
  Status saved = save_(scope);
  lock.lock();
  saving_ = false;
  save_done_.notify_all();
  if (saved.ok()) return saved;
  if (saved.code() != StatusCode::kCancelled) problem_ = saved.message();
  // Changed meanwhile: the new entry's due time stands.
  unsaved_.try_emplace(scope, Clock::now() + delay_);
  return saved;
}

void IndexSaver::Loop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    if (unsaved_.empty()) {
      wake_.wait(lock);
      continue;
    }
    const auto next =
        std::min_element(unsaved_.begin(), unsaved_.end(),
                         [](const auto& a, const auto& b) { return a.second < b.second; });
    // A copy: the entry may be gone (SaveAllNow) by the time the wait ends.
    const Clock::time_point due = next->second;
    if (Clock::now() < due) {
      wake_.wait_until(lock, due);
      continue;
    }
    const std::string scope = next->first;
    unsaved_.erase(next);
    // A failure is kept for TakeProblem and the scope tried again later.
    (void)SaveOne(lock, scope);
  }
}

}  // namespace engram
