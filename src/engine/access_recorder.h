// AccessRecorder: the access bookkeeping of searches (DESIGN §4: each fact
// a search returns gets access_count + 1 and last_accessed = the search's
// time), written off the search's path.
//
// A search hands over the facts it served and goes on: Record only queues
// them under a small lock of its own. What is queued is merged per fact (a
// count and the latest time) and written in one batch by a background
// thread at most `delay_ms` after the first of them was queued, so many
// searches cost one short transaction. With `delay_ms` 0 nothing is
// queued: Record writes in the caller's thread and returns the write's
// status, and a failed write is not kept (the CLI's one-shot commands,
// which start no thread for it and exit next).
//
// Nothing is lost on a clean shutdown: the destructor writes what is still
// queued. Flush writes it at once (before a read that shows access counts,
// so that read sees every search that returned before it). A failed
// queued write (the thread's or a Flush's) keeps its batch for the next attempt (at most
// kMaxPendingFacts facts are kept; beyond that new ones are dropped and
// counted) and leaves a message that TakeProblem hands to the next search,
// which reports it as a warning.
//
// Each queued fact carries its id as well as its row, and the write checks
// both, so a fact removed meanwhile (and its row reused) gets no count.
//
// Thread-safety: every method may be called from any thread. Writes are
// serialised, in the order they were taken from the queue; `write` runs
// under no lock of the recorder's but that one, and is never called from
// Record with `delay_ms` > 0. The thread starts on the first delayed
// Record and is joined by the destructor.
#ifndef ENGRAM_SRC_ENGINE_ACCESS_RECORDER_H_
#define ENGRAM_SRC_ENGINE_ACCESS_RECORDER_H_

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <vector>

#include "engram/status.h"
#include "src/store/fact_store.h"

namespace engram {

class AccessRecorder {
 public:
  // Writes one merged batch (FactStore::RecordAccess in a transaction).
  // `queued` is false for Record's own write with no delay, true for every
  // other (the thread's, Flush's), so the two may use different
  // connections.
  using Write = std::function<Status(const std::vector<AccessCount>&, bool queued)>;
  // Most distinct facts kept waiting; more are dropped and counted.
  static constexpr size_t kMaxPendingFacts = 1 << 16;

  explicit AccessRecorder(Write write);
  ~AccessRecorder();
  AccessRecorder(const AccessRecorder&) = delete;
  AccessRecorder& operator=(const AccessRecorder&) = delete;

  // One served fact: its row and id.
  struct Served {
    std::string scope;
    int64_t rowid = 0;
    std::string id;
  };
  // Counts one access of each of `served` at `now`, written within
  // `delay_ms`; with `delay_ms` 0, written before this returns (and not
  // kept if that fails), the write's status returned. Never fails
  // otherwise.
  Status Record(const std::vector<Served>& served, Timestamp now, int delay_ms);

  // Writes what is queued now, in the caller's thread, after any write in
  // progress; returns that write's status. A failed batch stays queued for
  // the next write, and TakeProblem reports it.
  Status Flush();

  // What went wrong since the last call: the latest failed Flush (the
  // thread's own writes are Flushes) with how many facts wait, and how
  // many were dropped; nullopt if nothing did. A failed write in Record is
  // its caller's to report, not repeated here.
  std::optional<std::string> TakeProblem();

 private:
  using Clock = std::chrono::steady_clock;

  // Adds `counts` to the queue, merged per fact (dropping and counting
  // what is beyond kMaxPendingFacts); caller holds queue_mutex_.
  void MergeLocked(const std::vector<AccessCount>& counts);
  // Keeps `failed`'s message for TakeProblem.
  void NoteProblem(const Status& failed);
  // Takes the queue and writes it, putting it back (due after retry_) if
  // the write fails. Caller holds write_mutex_ and not queue_mutex_.
  Status TakeAndWrite();
  void Loop();

  const Write write_;
  std::mutex write_mutex_;  // one write at a time, in queue order

  std::mutex queue_mutex_;  // guards everything below
  std::condition_variable wake_;
  std::unordered_map<int64_t, AccessCount> queued_;  // by rowid
  std::optional<Clock::time_point> due_;             // set while queued_ is not empty
  Clock::duration retry_ = std::chrono::seconds(1);  // after a failed write: the latest delay
  std::string problem_;                              // latest failed write, until taken
  size_t dropped_ = 0;                               // facts dropped, until taken
  bool stop_ = false;
  std::thread thread_;  // started on the first delayed Record
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_ACCESS_RECORDER_H_
