#include "src/common/run_beside.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <string>
#include <thread>
#include <utility>

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
  ASSERT_GE(CurrentCpu(), 0);
  // The task's affinity, and the CPU it ran on. Which CPU the caller was
  // on when RunBeside looked is not known here (the caller may move), so
  // the test asks that exactly one allowed CPU was taken out, and that the
  // task ran on one of the others.
  std::future<std::pair<cpu_set_t, int>> seen =
      RunBeside([] { return std::make_pair(Allowed(), CurrentCpu()); });
  const auto [during, ran_on] = seen.get();
  if (CPU_COUNT(&before) < 2) {
    // Nowhere else to go: the task keeps the caller's affinity.
    EXPECT_TRUE(CPU_EQUAL(&before, &during));
  } else {
    EXPECT_EQ(CPU_COUNT(&during), CPU_COUNT(&before) - 1);
    cpu_set_t kept;
    CPU_AND(&kept, &during, &before);
    EXPECT_TRUE(CPU_EQUAL(&kept, &during)) << "only CPUs the caller may use";
    EXPECT_TRUE(CPU_ISSET(ran_on, &during));
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
