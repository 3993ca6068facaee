#include "src/common/rw_lock.h"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <shared_mutex>
#include <thread>

namespace engram {
namespace {

TEST(RwLockTest, ReadersShareAndAWriterExcludesThem) {
  RwLock lock;
  {
    std::shared_lock first(lock);
    ASSERT_TRUE(lock.try_lock_shared());  // a second reader gets in
    lock.unlock_shared();
    EXPECT_FALSE(lock.try_lock());  // a writer does not
  }
  std::unique_lock writer(lock);
  EXPECT_FALSE(lock.try_lock_shared());
}

// The property the vector cache needs: with a reader inside and a writer
// waiting, a new reader waits too, so the writer gets in as soon as the
// readers inside leave.
TEST(RwLockTest, AWaitingWriterGoesBeforeNewReaders) {
  RwLock lock;
  std::atomic<bool> wrote{false};
  lock.lock_shared();
  std::thread writer([&] {
    std::unique_lock hold(lock);
    wrote = true;
  });
  // Once the writer is queued, a new reader is turned away.
  bool turned_away = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (std::chrono::steady_clock::now() < deadline) {
    if (!lock.try_lock_shared()) {
      turned_away = true;
      break;
    }
    lock.unlock_shared();
    std::this_thread::yield();
  }
  EXPECT_TRUE(turned_away) << "a new reader got in while a writer waited";
  EXPECT_FALSE(wrote.load());
  lock.unlock_shared();
  writer.join();
  EXPECT_TRUE(wrote.load());
}

}  // namespace
}  // namespace engram
