// LexicalCache: each searched scope's full-text index in memory
// (src/lexical/lexical_index.h), kept in step with the store by change
// number (FactStore::ChangesOf, ForEachChangedSince), so that a search
// finds its lexical matches without FTS5 and without a lookup per match.
//
// A search asks for a scope's index inside the read transaction it
// searches (Acquire; never inside a write transaction, whose numbers a
// rollback gives again), and gets it only when the index describes exactly
// what that transaction sees: the scope's largest change number and fact
// count as the index was last brought to. An index behind the snapshot is
// brought in step first, from the snapshot: the facts changed since are
// applied one by one (an access counted, a fact superseded, a fact added);
// a fact whose text changed, a fact deleted (the count tells), or a first
// use builds the scope's index again from every fact (about 100 ms for
// 10,000 facts). A search whose snapshot is older than the index (by the
// store's largest change number), a search of an empty scope (whose index
// is dropped), a search of a scope the index could not be brought in step
// with (a read failed, or the facts disagree with their count: not tried
// again until the count changes), and any search of a store that does not
// number changes (PostgreSQL), gets none and reads the store's own index,
// as every search did before. An error reading the scope's state fails the
// search, as the store's own index would.
//
// Thread-safety: Acquire may be called from any number of threads. Each
// scope's index has a RwLock: a lease holds it shared while the search
// matches; bringing the index in step holds it exclusively, and a waiting
// writer goes first, so a steady stream of searches cannot hold it off.
#ifndef ENGRAM_SRC_ENGINE_LEXICAL_CACHE_H_
#define ENGRAM_SRC_ENGINE_LEXICAL_CACHE_H_

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <shared_mutex>
#include <string>

#include "engram/status.h"
#include "src/common/rw_lock.h"
#include "src/lexical/lexical_index.h"
#include "src/store/fact_store.h"

namespace engram {

class LexicalCache {
 public:
  // One scope's index, held for one search: readable while the lease
  // lives; release it before the search does anything slow.
  class Lease {
   public:
    Lease(std::shared_lock<RwLock> lock, const LexicalIndex* index)
        : lock_(std::move(lock)), index_(index) {}
    const LexicalIndex& Index() const { return *index_; }

   private:
    std::shared_lock<RwLock> lock_;
    const LexicalIndex* index_;
  };

  // The index of `scope` as `store`'s current read transaction sees it,
  // brought in step first when it lags; nullopt when it cannot serve this
  // transaction (see above). Call inside that transaction.
  Result<std::optional<Lease>> Acquire(FactStore& store, const std::string& scope);

  // How many times an index was built whole, and brought in step by the
  // changes alone, since the cache began.
  size_t Builds() const;
  size_t Updates() const;

 private:
  struct Entry {
    RwLock lock;
    std::unique_ptr<LexicalIndex> index;  // null until built, or after a failed step
    ScopeChanges at;                      // what `index` describes
    // The scope's count when the index could not be brought in step (a
    // read failed, or the facts read disagreed with their count): not
    // tried again while the count is the same.
    std::optional<int64_t> failed_at_count;
  };

  Entry& EntryOf(const std::string& scope);
  // Brings `entry` to `now`, the transaction's state of `scope`; the caller
  // holds entry.lock exclusively and drops the index when it fails.
  Status BringInStep(FactStore& store, const std::string& scope, const ScopeChanges& now,
                     Entry* entry);

  mutable std::mutex mutex_;  // guards the fields below
  std::map<std::string, std::unique_ptr<Entry>> entries_;
  bool unsupported_ = false;  // the store does not number changes
  size_t builds_ = 0;
  size_t updates_ = 0;
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_LEXICAL_CACHE_H_
