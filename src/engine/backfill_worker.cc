#include "src/engine/backfill_worker.h"

#include <utility>

namespace engram {

BackfillWorker::BackfillWorker(Step step) : step_(std::move(step)), thread_([this] { Loop(); }) {}

BackfillWorker::~BackfillWorker() {
  {
    std::lock_guard lock(mutex_);
    stop_.store(true);
  }
  wake_.notify_all();
  thread_.join();
}

void BackfillWorker::Poke() {
  {
    std::lock_guard lock(mutex_);
    pending_ = true;
  }
  wake_.notify_one();
}

void BackfillWorker::Loop() {
  while (true) {
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return pending_ || stop_.load(); });
      if (stop_.load()) return;
      pending_ = false;
    }
    step_(stop_);
  }
}

}  // namespace engram
