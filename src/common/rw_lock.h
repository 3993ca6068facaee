// RwLock: a reader-writer lock on which a waiting writer goes first: once a
// writer waits, new readers queue behind it. std::shared_mutex on glibc
// lets readers in while a writer waits, so steady overlapping readers can
// hold a writer off indefinitely.
//
// Meets SharedMutex: use it with std::shared_lock and std::unique_lock. Not
// recursive: a thread must not take it twice.
#ifndef ENGRAM_SRC_COMMON_RW_LOCK_H_
#define ENGRAM_SRC_COMMON_RW_LOCK_H_

#include <pthread.h>

namespace engram {

class RwLock {
 public:
  RwLock();
  ~RwLock();
  RwLock(const RwLock&) = delete;
  RwLock& operator=(const RwLock&) = delete;

  void lock();         // NOLINT(readability-identifier-naming): SharedMutex names
  bool try_lock();     // NOLINT(readability-identifier-naming): SharedMutex names
  void unlock();       // NOLINT(readability-identifier-naming): SharedMutex names
  void lock_shared();  // NOLINT(readability-identifier-naming): SharedMutex names
  // False when a writer holds the lock or waits for it.
  bool try_lock_shared();  // NOLINT(readability-identifier-naming): SharedMutex names
  void unlock_shared();    // NOLINT(readability-identifier-naming): SharedMutex names

 private:
  pthread_rwlock_t lock_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_RW_LOCK_H_
