// CpuMilliseconds: the benchmarks' CPU clock. CPU time is less sensitive
// than wall time to other processes on a shared machine.
#ifndef ENGRAM_BENCH_CPU_TIME_H_
#define ENGRAM_BENCH_CPU_TIME_H_

#include <time.h>

namespace engram {

// CPU time of `clock` in ms: CLOCK_THREAD_CPUTIME_ID (the default), the
// calling thread's; CLOCK_PROCESS_CPUTIME_ID, every thread's.
inline double CpuMilliseconds(clockid_t clock = CLOCK_THREAD_CPUTIME_ID) {
  timespec now{};
  clock_gettime(clock, &now);
  return (static_cast<double>(now.tv_sec) * 1e3) + (static_cast<double>(now.tv_nsec) / 1e6);
}

}  // namespace engram

#endif  // ENGRAM_BENCH_CPU_TIME_H_
