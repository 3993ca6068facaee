// IndexSaver: writes a vector cache's changed HNSW files off the search
// path (VectorCache; docs/ARCHITECTURE.md, "Large scopes").
//
// A saved HNSW file only saves time: the store is the truth, and a cache
// that loads a stale file catches up by label, reading just the vectors
// that changed since. So a change need not be saved at once. Changed(scope)
// notes it; a background thread saves the scope once `delay_ms` have passed
// since its first unsaved change, so a burst of changes costs one save.
// Nor should saving keep the disk busy: a large graph's file is hundreds of
// megabytes, which steady adds would have rewritten every few seconds. So
// after a save that took t, the scope's next one starts no sooner than
// kRestFactor x t after it ended: its saves take at most
// 1 / (1 + kRestFactor) of the time.
//
// A save is the owner's `save(scope)`, which holds the index only briefly
// (VectorCache::SaveHnsw). One that could not finish because the index
// changed under it (Cancelled) is tried again after another delay; one that
// failed is too, and its message is kept for TakeProblem. SaveAllNow saves
// whatever is left, in the caller's thread (the owner's destructor calls it
// once Stop has ended the thread).
//
// Thread-safety: every method may be called from any thread; `save` runs
// on the saver's thread or SaveAllNow's caller, one call at a time, and
// under no lock of the saver's. The thread starts with the first Changed
// and ends with Stop or the destructor.
#ifndef ENGRAM_SRC_ENGINE_INDEX_SAVER_H_
#define ENGRAM_SRC_ENGINE_INDEX_SAVER_H_

#include <chrono>
#include <condition_variable>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engram/status.h"

namespace engram {

class IndexSaver {
 public:
  using Save = std::function<Status(const std::string& scope)>;
  // How many times a save's duration a scope rests before its next save.
  static constexpr int kRestFactor = 9;

  // `delay_ms` > 0.
  IndexSaver(Save save, int delay_ms);
  ~IndexSaver();
  IndexSaver(const IndexSaver&) = delete;
  IndexSaver& operator=(const IndexSaver&) = delete;

  // `scope` changed: save it within delay_ms of its first unsaved change.
  void Changed(const std::string& scope);
  // Ends the thread, after the save it is running; later Changed calls
  // start none.
  void Stop();
  // Saves every changed scope now, in the caller's thread, resting or not;
  // the first failure's status (every scope is tried).
  Status SaveAllNow();
  // The latest failed save since the last call, if any.
  std::optional<std::string> TakeProblem();
  // Scopes changed and not saved yet.
  size_t Pending() const;

 private:
  using Clock = std::chrono::steady_clock;
  // Runs one save of `scope` once no other runs, and puts it back, due
  // after another delay, when it did not end in a saved file. `lock` holds
  // mutex_ before and after; the save itself runs without it.
  Status SaveOne(std::unique_lock<std::mutex>& lock, const std::string& scope);
  void Loop();

  const Save save_;
  const Clock::duration delay_;

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;
  std::condition_variable save_done_;
  std::map<std::string, Clock::time_point> unsaved_;     // scope -> when due
  std::map<std::string, Clock::time_point> rest_until_;  // scope -> next save no sooner
  std::string problem_;                                  // latest failed save, until taken
  bool saving_ = false;                                  // a save runs: one at a time
  bool stop_ = false;
  std::thread thread_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_INDEX_SAVER_H_
