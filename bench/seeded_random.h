// SeededRandom: the benchmarks' pseudo-random numbers, SplitMix64, whose
// sequence for a seed is the same on every platform and library (unlike
// the std:: distributions), so generated data is the same everywhere.
#ifndef ENGRAM_BENCH_SEEDED_RANDOM_H_
#define ENGRAM_BENCH_SEEDED_RANDOM_H_

#include <cstdint>
#include <vector>

namespace engram {

class SeededRandom {
 public:
  explicit SeededRandom(uint64_t seed) : state_(seed) {}

  uint64_t Next() {
    uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
  }

  // An entry of non-empty `items`.
  template <typename T>
  const T& Pick(const std::vector<T>& items) {
    return items[Next() % items.size()];
  }

 private:
  uint64_t state_;
};

}  // namespace engram

#endif  // ENGRAM_BENCH_SEEDED_RANDOM_H_
