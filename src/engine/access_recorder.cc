#include "src/engine/access_recorder.h"

#include <algorithm>
#include <utility>

namespace engram {

AccessRecorder::AccessRecorder(Write write) : write_(std::move(write)) {}

AccessRecorder::~AccessRecorder() {
  {
    std::lock_guard lock(queue_mutex_);
    stop_ = true;
  }
  wake_.notify_all();
  if (thread_.joinable()) thread_.join();
  // What is still queued is written now; a failure here has no one left to
  // tell, and the store keeps its counts from before.
  (void)Flush();
}

Status AccessRecorder::Record(const std::vector<Served>& served, Timestamp now, int delay_ms) {
  if (served.empty()) return Status::OK();
  std::vector<AccessCount> counts;
  counts.reserve(served.size());
  for (const Served& s : served) counts.push_back({s.scope, s.rowid, s.id, 1, now});
  if (delay_ms == 0) {
    std::lock_guard write_lock(write_mutex_);
    return write_(counts, /*queued=*/false);  // the caller reports a failure
  }
  std::lock_guard lock(queue_mutex_);
  MergeLocked(counts);
  const Clock::time_point due = Clock::now() + std::chrono::milliseconds(delay_ms);
  retry_ = std::chrono::milliseconds(delay_ms);
  if (!thread_.joinable()) thread_ = std::thread([this] { Loop(); });
  if (!due_ || due < *due_) {
    due_ = due;
    wake_.notify_one();
  }
  return Status::OK();
}

Status AccessRecorder::Flush() {
  Status written;
  {
    std::lock_guard write_lock(write_mutex_);
    written = TakeAndWrite();
  }
  if (!written.ok()) NoteProblem(written);
  return written;
}

std::optional<std::string> AccessRecorder::TakeProblem() {
  std::lock_guard lock(queue_mutex_);
  if (problem_.empty() && dropped_ == 0) return std::nullopt;
  std::string message;
  if (!problem_.empty()) {
    message = "access of " + std::to_string(queued_.size()) +
              " fact(s) not recorded yet, retrying: " + problem_;
  }
  if (dropped_ > 0) {
    if (!message.empty()) message += "; ";
    message += "access of " + std::to_string(dropped_) + " fact(s) not recorded: more than " +
               std::to_string(kMaxPendingFacts) + " facts were waiting";
  }
  problem_.clear();
  dropped_ = 0;
  return message;
}

void AccessRecorder::NoteProblem(const Status& failed) {
  std::lock_guard lock(queue_mutex_);
  problem_ = failed.message();
}

void AccessRecorder::MergeLocked(const std::vector<AccessCount>& counts) {
  for (const AccessCount& c : counts) {
    auto it = queued_.find(c.rowid);
    if (it != queued_.end() && it->second.id == c.id) {
      it->second.count += c.count;
      it->second.last = std::max(it->second.last, c.last);
    } else if (it != queued_.end()) {
      it->second = c;  // the row holds another fact now: the old one is gone
    } else if (queued_.size() < kMaxPendingFacts) {
      queued_.emplace(c.rowid, c);
    } else {
      dropped_ += static_cast<size_t>(c.count);
    }
  }
}

Status AccessRecorder::TakeAndWrite() {
  std::vector<AccessCount> batch;
  {
    std::lock_guard lock(queue_mutex_);
    if (queued_.empty()) return Status::OK();
    batch.reserve(queued_.size());
    for (auto& [rowid, count] : queued_) batch.push_back(std::move(count));
    queued_.clear();
    due_.reset();
  }
  // In row order: the updates walk the table's b-tree forwards.
  std::sort(batch.begin(), batch.end(),
            [](const AccessCount& a, const AccessCount& b) { return a.rowid < b.rowid; });
  Status written = write_(batch, /*queued=*/true);
  if (!written.ok()) {
    std::lock_guard lock(queue_mutex_);
    MergeLocked(batch);
    due_ = Clock::now() + retry_;
  }
  return written;
}

void AccessRecorder::Loop() {
  std::unique_lock lock(queue_mutex_);
  while (!stop_) {
    if (!due_) {
      wake_.wait(lock);
      continue;
    }
    if (Clock::now() < *due_) {
      wake_.wait_until(lock, *due_);
      continue;
    }
    lock.unlock();
    (void)Flush();  // a failed batch stays queued, and the next search is told
    lock.lock();
  }
}

}  // namespace engram
