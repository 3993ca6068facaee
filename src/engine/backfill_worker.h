// BackfillWorker: one background thread that runs a bounded step of work
// each time it is poked (DESIGN §6: after a search, embed at most
// backfill_batch_max facts that lack a vector in the active space).
//
// Pokes that arrive while a step runs fold into one more step. The
// destructor asks the step to stop (the flag it is given turns true), waits
// for it to return and joins the thread: nothing runs after destruction.
//
// Thread-safety: Poke may be called from any thread, concurrently.
#ifndef ENGRAM_SRC_ENGINE_BACKFILL_WORKER_H_
#define ENGRAM_SRC_ENGINE_BACKFILL_WORKER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <mutex>
#include <thread>

namespace engram {

class BackfillWorker {
 public:
  // `step` does one bounded piece of work; it should return early when
  // `stop` turns true. It runs only on the worker thread.
  using Step = std::function<void(const std::atomic<bool>& stop)>;

  explicit BackfillWorker(Step step);
  ~BackfillWorker();
  BackfillWorker(const BackfillWorker&) = delete;
  BackfillWorker& operator=(const BackfillWorker&) = delete;

  // Asks for one more step.
  void Poke();

 private:
  void Loop();

  Step step_;
  std::mutex mutex_;
  std::condition_variable wake_;
  bool pending_ = false;  // guarded by mutex_
  std::atomic<bool> stop_{false};
  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_BACKFILL_WORKER_H_
