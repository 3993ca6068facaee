#include "src/common/run_beside.h"

#if defined(__linux__)
#include <sched.h>
#endif

namespace engram {

int CurrentCpu() {
#if defined(__linux__)
  return ::sched_getcpu();
#else
  return -1;
#endif
}

void AvoidCpu(int cpu) {
#if defined(__linux__)
  if (cpu < 0 || cpu >= CPU_SETSIZE) return;
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (::sched_getaffinity(0, sizeof(allowed), &allowed) != 0) return;
  if (!CPU_ISSET(cpu, &allowed) || CPU_COUNT(&allowed) < 2) return;
  CPU_CLR(cpu, &allowed);
  ::sched_setaffinity(0, sizeof(allowed), &allowed);  // a hint: an error leaves it where it is
#else
  (void)cpu;
#endif
}

}  // namespace engram
