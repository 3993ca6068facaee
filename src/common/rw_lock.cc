#include "src/common/rw_lock.h"

#include <cstdlib>

namespace engram {
namespace {

// A lock that fails on a valid object means memory is corrupt: stop.
void Check(int rc) {
  if (rc != 0) std::abort();
}

}  // namespace

RwLock::RwLock() {
  pthread_rwlockattr_t attr;
  Check(pthread_rwlockattr_init(&attr));
  Check(pthread_rwlockattr_setkind_np(&attr, PTHREAD_RWLOCK_PREFER_WRITER_NONRECURSIVE_NP));
  Check(pthread_rwlock_init(&lock_, &attr));
  Check(pthread_rwlockattr_destroy(&attr));
}

RwLock::~RwLock() { pthread_rwlock_destroy(&lock_); }

void RwLock::lock() { Check(pthread_rwlock_wrlock(&lock_)); }
bool RwLock::try_lock() { return pthread_rwlock_trywrlock(&lock_) == 0; }
void RwLock::unlock() { Check(pthread_rwlock_unlock(&lock_)); }
void RwLock::lock_shared() { Check(pthread_rwlock_rdlock(&lock_)); }
bool RwLock::try_lock_shared() { return pthread_rwlock_tryrdlock(&lock_) == 0; }
void RwLock::unlock_shared() { Check(pthread_rwlock_unlock(&lock_)); }

}  // namespace engram
