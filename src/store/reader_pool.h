// ReaderPool: read-only connections to one store (Store::OpenReader), each
// lent to one thread at a time, so that reads run side by side with each
// other and with the writer: every connection reads its own snapshot.
//
// Connections are opened on first need, up to `max_readers`; a borrower that
// finds every one lent waits until one comes back. A connection that fails to
// open is that borrower's error; the next Acquire tries again.
//
// Thread-safety: Acquire may be called from any thread; a Lease belongs to
// the thread holding it. The pool must outlive its leases.
#ifndef ENGRAM_SRC_STORE_READER_POOL_H_
#define ENGRAM_SRC_STORE_READER_POOL_H_

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <vector>

#include "engram/status.h"
#include "src/store/store.h"

namespace engram {

class ReaderPool {
 public:
  // Opens readers of `origin`, which must outlive the pool.
  ReaderPool(Store* origin, size_t max_readers);
  ReaderPool(const ReaderPool&) = delete;
  ReaderPool& operator=(const ReaderPool&) = delete;

  // One connection, returned to the pool when the lease is destroyed.
  class Lease {
   public:
    Lease(ReaderPool* pool, std::unique_ptr<Store> store) : pool_(pool), store_(std::move(store)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) noexcept = delete;
    Lease(const Lease&) = delete;
    Lease& operator=(const Lease&) = delete;
    ~Lease();

    Store& store() const { return *store_; }  // NOLINT(readability-identifier-naming): accessor

   private:
    ReaderPool* pool_;
    std::unique_ptr<Store> store_;
  };

  // An idle connection, a new one while fewer than max_readers are open,
  // else the next one given back.
  Result<Lease> Acquire();

  // Connections open now, lent or idle.
  size_t Open() const;

 private:
  void GiveBack(std::unique_ptr<Store> store);

  Store* const origin_;
  const size_t max_readers_;
  mutable std::mutex mutex_;
  std::condition_variable returned_;
  std::vector<std::unique_ptr<Store>> idle_;  // guarded by mutex_
  size_t open_ = 0;                           // guarded by mutex_
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_READER_POOL_H_
