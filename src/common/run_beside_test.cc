#include "src/common/run_beside.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <string>
#include <thread>

namespace engram {
namespace {

// The CPUs the calling thread may run on.
cpu_set_t Allowed() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(::sched_getaffinity(0, sizeof(set), &set), 0);
  return set;
}

TEST(RunBesideTest, TheTaskRunsOnItsOwnThreadAndItsResultComesBack) {
  const std::thread::id caller = std::this_thread::get_id();
  std::future<std::string> result = RunBeside([caller] {
    return std::this_thread::get_id() == caller ? std::string("caller") : std::string("own");
  });
  EXPECT_EQ(result.get(), "own");
}

TEST(RunBesideTest, TheTaskRunsOffTheCallersCpuWhenAnotherIsAllowed) {
  const cpu_set_t before = Allowed();
  const int caller_cpu = CurrentCpu();
  ASSERT_GE(caller_cpu, 0);
  std::future<cpu_set_t> seen = RunBeside([] { return Allowed(); });
  const cpu_set_t during = seen.get();
  if (CPU_COUNT(&before) < 2) {
    // Nowhere else to go: the task keeps the caller's affinity.
    EXPECT_TRUE(CPU_EQUAL(&before, &during));
  } else {
    EXPECT_FALSE(CPU_ISSET(caller_cpu, &during));
    EXPECT_EQ(CPU_COUNT(&during), CPU_COUNT(&before) - 1);
  }
  // The caller's own affinity is untouched.
  const cpu_set_t after = Allowed();
  EXPECT_TRUE(CPU_EQUAL(&before, &after));
}

TEST(RunBesideTest, AvoidingTheOnlyAllowedCpuChangesNothing) {
  std::thread([] {
    cpu_set_t one;
    CPU_ZERO(&one);
    const int cpu = CurrentCpu();
    ASSERT_GE(cpu, 0);
    CPU_SET(cpu, &one);
    ASSERT_EQ(::sched_setaffinity(0, sizeof(one), &one), 0);
    AvoidCpu(cpu);
    const cpu_set_t after = Allowed();
    EXPECT_TRUE(CPU_EQUAL(&one, &after));
    AvoidCpu(-1);
    const cpu_set_t still = Allowed();
    EXPECT_TRUE(CPU_EQUAL(&one, &still));
  }).join();
}

}  // namespace
}  // namespace engram
