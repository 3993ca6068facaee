#include "src/store/reader_pool.h"

#include <algorithm>
#include <utility>

namespace engram {

ReaderPool::ReaderPool(Store* origin, size_t max_readers)
    : origin_(origin), max_readers_(std::max<size_t>(max_readers, 1)) {}

ReaderPool::Lease::~Lease() {
  if (store_) pool_->GiveBack(std::move(store_));
}

Result<ReaderPool::Lease> ReaderPool::Acquire() {
  {
    std::unique_lock lock(mutex_);
    returned_.wait(lock, [this] { return !idle_.empty() || open_ < max_readers_; });
    if (!idle_.empty()) {
      std::unique_ptr<Store> store = std::move(idle_.back());
      idle_.pop_back();
      return Lease(this, std::move(store));
    }
    ++open_;  // this slot is ours while the connection opens
  }
  auto opened = origin_->OpenReader();
  if (!opened.ok()) {
    {
      std::lock_guard lock(mutex_);
      --open_;
    }
    returned_.notify_one();
    return opened.status().WithContext("reader");
  }
  return Lease(this, std::move(*opened));
}

size_t ReaderPool::Open() const {
  std::lock_guard lock(mutex_);
  return open_;
}

void ReaderPool::GiveBack(std::unique_ptr<Store> store) {
  {
    std::lock_guard lock(mutex_);
    idle_.push_back(std::move(store));
  }
  returned_.notify_one();
}

}  // namespace engram
