// VectorData: the benchmarks' generated unit vectors, the same on every run
// (fixed seeds). "uniform" draws them uniformly on the sphere, the worst
// case for a graph index (no structure, nearest neighbours barely nearer
// than the rest); "lowrank" puts them near a random `rank`-dimensional
// subspace plus isotropic noise of norm `noise`, the shape of real
// embeddings (low intrinsic dimension). The subspace is fixed by the set,
// so data and queries made with other seeds share it.
#ifndef ENGRAM_BENCH_VECTOR_DATA_H_
#define ENGRAM_BENCH_VECTOR_DATA_H_

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "src/vindex/vector_math.h"

namespace engram {

inline void Normalize(float* v, size_t dim) {
  double norm2 = 0.0;
  for (size_t j = 0; j < dim; ++j) norm2 += static_cast<double>(v[j]) * v[j];
  const double scale = 1.0 / std::sqrt(norm2);
  for (size_t j = 0; j < dim; ++j) v[j] = static_cast<float>(v[j] * scale);
}

class DataSet {
 public:
  // Exits with a message for an unknown `kind`.
  DataSet(std::string kind, size_t dim, size_t rank, double noise)
      : kind_(std::move(kind)), dim_(dim), rank_(rank), noise_(noise) {
    if (kind_ == "lowrank") {
      std::mt19937 rng(7);
      std::normal_distribution<float> normal(0.0f, 1.0f);
      basis_.resize(dim_ * rank_);
      for (float& x : basis_) x = normal(rng);
    } else if (kind_ != "uniform") {
      std::fprintf(stderr, "unknown data set %s (want uniform or lowrank)\n", kind_.c_str());
      std::exit(2);
    }
  }

  // `count` vectors of the set, one after another, on two threads.
  std::vector<float> Make(size_t count, uint32_t seed) const {
    std::vector<float> out(count * dim_);
    const size_t workers = 2;
    std::vector<std::thread> threads;
    for (size_t w = 0; w < workers; ++w) {
      threads.emplace_back([&, w] {
        std::mt19937 rng(seed * 31 + static_cast<uint32_t>(w));
        std::normal_distribution<float> normal(0.0f, 1.0f);
        std::vector<float> z(rank_);
        for (size_t i = w; i < count; i += workers) {
          float* v = out.data() + (i * dim_);
          if (kind_ == "uniform") {
            for (size_t j = 0; j < dim_; ++j) v[j] = normal(rng);
          } else {
            for (float& x : z) x = normal(rng);
            for (size_t j = 0; j < dim_; ++j) {
              v[j] = Dot(basis_.data() + (j * rank_), z.data(), rank_);
            }
            Normalize(v, dim_);
            const float sigma = static_cast<float>(noise_ / std::sqrt(static_cast<double>(dim_)));
            for (size_t j = 0; j < dim_; ++j) v[j] += sigma * normal(rng);
          }
          Normalize(v, dim_);
        }
      });
    }
    for (std::thread& t : threads) t.join();
    return out;
  }

  const std::string& Kind() const { return kind_; }

 private:
  std::string kind_;
  size_t dim_;
  size_t rank_;
  double noise_;
  std::vector<float> basis_;  // dim x rank
};

}  // namespace engram

#endif  // ENGRAM_BENCH_VECTOR_DATA_H_
