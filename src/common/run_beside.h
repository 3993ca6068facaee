// RunBeside: a task on a thread of its own, on another CPU than the caller
// runs on, for work the caller overlaps with its own (a search embeds its
// query while it matches the query's terms).
//
// The kernel places a new thread on its parent's CPU when it judges that
// CPU no busier than the others: on a 2-CPU machine here, a thread started
// beside a busy parent took turns with it on one CPU while the other stayed
// idle, so nothing overlapped. RunBeside's thread first takes the caller's
// CPU out of its own affinity (when the process may run on another), which
// moves it at once; the kernel then balances the two as it balances any
// threads. A hint: when the affinity cannot be read or set, the thread
// runs where the kernel put it.
//
// When no thread can be started (a process at its limit), the task runs
// on the thread that first asks for its result, as std::launch::deferred.
//
// Thread-safety: RunBeside may be called from any thread. The future waits
// for a started task when dropped, as std::async's does.
#ifndef ENGRAM_SRC_COMMON_RUN_BESIDE_H_
#define ENGRAM_SRC_COMMON_RUN_BESIDE_H_

#include <future>
#include <system_error>
#include <utility>

namespace engram {

// The CPU the calling thread runs on; -1 when it cannot be told.
int CurrentCpu();
// Takes `cpu` out of the calling thread's affinity when another CPU stays
// in it; does nothing for a cpu of -1, or when it is the only one allowed.
void AvoidCpu(int cpu);

// `task()` on a new thread kept off the caller's current CPU.
template <typename Task>
auto RunBeside(Task task) -> std::future<decltype(task())> {
  try {
    // A copy of the task: if no thread starts, the fallback needs it.
    return std::async(std::launch::async, [task, cpu = CurrentCpu()]() mutable {
      AvoidCpu(cpu);
      return task();
    });
  } catch (const std::system_error&) {
    return std::async(std::launch::deferred, std::move(task));
  }
}

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_RUN_BESIDE_H_
