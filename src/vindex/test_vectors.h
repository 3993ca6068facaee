// Test helpers for vindex: seeded random unit vectors and a brute-force
// reference search. Header-only, for *_test.cc files.
#ifndef ENGRAM_SRC_VINDEX_TEST_VECTORS_H_
#define ENGRAM_SRC_VINDEX_TEST_VECTORS_H_

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <ostream>
#include <random>
#include <span>
#include <unordered_set>
#include <vector>

#include "src/vindex/vector_index.h"
#include "src/vindex/vector_math.h"

namespace engram {

// gtest prints hits as {label, score}.
inline void PrintTo(const ScoredLabel& hit, std::ostream* out) {
  *out << "{" << hit.label << ", " << hit.score << "}";
}

}  // namespace engram

namespace engram::testing {

// `count` unit vectors of `dimension`, uniform on the sphere, row after row.
inline std::vector<float> RandomUnitVectors(size_t count, size_t dimension, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::vector<float> data(count * dimension);
  for (size_t i = 0; i < count; ++i) {
    double norm2 = 0.0;
    float* row = data.data() + (i * dimension);
    for (size_t j = 0; j < dimension; ++j) {
      row[j] = normal(rng);
      norm2 += static_cast<double>(row[j]) * row[j];
    }
    const double scale = 1.0 / std::sqrt(norm2);
    for (size_t j = 0; j < dimension; ++j) row[j] = static_cast<float>(row[j] * scale);
  }
  return data;
}

inline std::span<const float> Row(const std::vector<float>& data, size_t dimension, size_t i) {
  return std::span<const float>(data).subspan(i * dimension, dimension);
}

// Every row normalised as an index stores it (NormalizeInPlace), scored
// with Dot and sorted by (score desc, label asc).
inline std::vector<ScoredLabel> BruteForce(std::span<const float> query,
                                           const std::vector<float>& data,
                                           const std::vector<int64_t>& labels, size_t dimension,
                                           size_t k, float min_score) {
  std::vector<ScoredLabel> all;
  std::vector<float> row(dimension);
  for (size_t i = 0; i < labels.size(); ++i) {
    std::copy_n(data.begin() + static_cast<std::ptrdiff_t>(i * dimension), dimension, row.begin());
    if (!NormalizeInPlace(row).ok()) continue;
    const float score = Dot(query.data(), row.data(), dimension);
    if (score >= min_score) all.push_back({labels[i], score});
  }
  std::sort(all.begin(), all.end(), [](const ScoredLabel& a, const ScoredLabel& b) {
    return a.score != b.score ? a.score > b.score : a.label < b.label;
  });
  if (all.size() > k) all.resize(k);
  return all;
}

// Fraction of `exact`'s labels found in `approximate`.
inline double Recall(const std::vector<ScoredLabel>& approximate,
                     const std::vector<ScoredLabel>& exact) {
  if (exact.empty()) return 1.0;
  std::unordered_set<int64_t> found;
  for (const ScoredLabel& hit : approximate) found.insert(hit.label);
  size_t hits = 0;
  for (const ScoredLabel& hit : exact) hits += found.count(hit.label);
  return static_cast<double>(hits) / static_cast<double>(exact.size());
}

}  // namespace engram::testing

#endif  // ENGRAM_SRC_VINDEX_TEST_VECTORS_H_
