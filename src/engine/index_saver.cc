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
  Clock::time_point due = Clock::now() + delay_;
  if (const auto rest = rest_until_.find(scope); rest != rest_until_.end()) {
    due = std::max(due, rest->second);
  }
  const bool added = unsaved_.try_emplace(scope, due).second;
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
  for (const auto& entry : all) {
    Status saved = SaveOne(lock, entry.first);
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
  const Clock::time_point began = Clock::now();
  Status saved = save_(scope);
  const Clock::time_point ended = Clock::now();
  lock.lock();
  saving_ = false;
  save_done_.notify_all();
  if (saved.ok()) {
    const Clock::time_point rest_until = ended + kRestFactor * (ended - began);
    rest_until_[scope] = rest_until;
    // Changed while it was saved: that change waits for the rest too.
    if (const auto again = unsaved_.find(scope); again != unsaved_.end()) {
      again->second = std::max(again->second, rest_until);
    }
    return saved;
  }
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
