#include "src/vindex/vector_math.h"

#include <cmath>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "src/common/vector_blob.h"

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ENGRAM_VINDEX_X86 1
#endif

namespace engram {
namespace {

using DotRowsFn = void (*)(const float*, const float*, size_t, size_t, float*);

void DotRowsPortable(const float* query, const float* rows, size_t count, size_t n, float* out) {
  for (size_t r = 0; r < count; ++r) out[r] = DotPortable(query, rows + (r * n), n);
}

#ifdef ENGRAM_VINDEX_X86
// The AVX2 kernels. Every row is summed the same way, in Dot and DotRows:
// four 8-lane accumulators take 32 floats per step; the remaining whole
// chunks of 8 go to accumulators 0, 1, 2 in turn; the lanes are added as
// (a0 + a1) + (a2 + a3) and then across; the last n % 8 products are fused
// into that sum one at a time.
#define ENGRAM_AVX2 __attribute__((target("avx2,fma")))

ENGRAM_AVX2 inline __m256 Fma8(const float* a, const float* b, __m256 acc) {
  return _mm256_fmadd_ps(_mm256_loadu_ps(a), _mm256_loadu_ps(b), acc);
}

ENGRAM_AVX2 inline float HorizontalSum(__m256 v) {
  __m128 sum = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  __m128 shuffled = _mm_movehdup_ps(sum);
  sum = _mm_add_ps(sum, shuffled);
  shuffled = _mm_movehl_ps(shuffled, sum);
  sum = _mm_add_ss(sum, shuffled);
  return _mm_cvtss_f32(sum);
}

// Finishes one row from its accumulators; `i` is where the 32-float steps
// stopped.
ENGRAM_AVX2 inline float FinishRow(const float* a, const float* b, size_t i, size_t n, __m256 acc0,
                                   __m256 acc1, __m256 acc2, __m256 acc3) {
  if (i + 8 <= n) {
    acc0 = Fma8(a + i, b + i, acc0);
    i += 8;
  }
  if (i + 8 <= n) {
    acc1 = Fma8(a + i, b + i, acc1);
    i += 8;
  }
  if (i + 8 <= n) {
    acc2 = Fma8(a + i, b + i, acc2);
    i += 8;
  }
  __m128 sum = _mm_set_ss(
      HorizontalSum(_mm256_add_ps(_mm256_add_ps(acc0, acc1), _mm256_add_ps(acc2, acc3))));
  for (; i < n; ++i) sum = _mm_fmadd_ss(_mm_set_ss(a[i]), _mm_set_ss(b[i]), sum);
  return _mm_cvtss_f32(sum);
}

ENGRAM_AVX2 float DotAvx2(const float* a, const float* b, size_t n) {
  __m256 acc0 = _mm256_setzero_ps();
  __m256 acc1 = _mm256_setzero_ps();
  __m256 acc2 = _mm256_setzero_ps();
  __m256 acc3 = _mm256_setzero_ps();
  size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    acc0 = Fma8(a + i, b + i, acc0);
    acc1 = Fma8(a + i + 8, b + i + 8, acc1);
    acc2 = Fma8(a + i + 16, b + i + 16, acc2);
    acc3 = Fma8(a + i + 24, b + i + 24, acc3);
  }
  return FinishRow(a, b, i, n, acc0, acc1, acc2, acc3);
}

// Two rows per pass: each query chunk is loaded once for both, and the
// eight accumulators keep both FMA pipes busy.
ENGRAM_AVX2 void DotRowsAvx2(const float* query, const float* rows, size_t count, size_t n,
                             float* out) {
  size_t r = 0;
  for (; r + 2 <= count; r += 2) {
    const float* x = rows + (r * n);
    const float* y = x + n;
    __m256 x0 = _mm256_setzero_ps();
    __m256 x1 = _mm256_setzero_ps();
    __m256 x2 = _mm256_setzero_ps();
    __m256 x3 = _mm256_setzero_ps();
    __m256 y0 = _mm256_setzero_ps();
    __m256 y1 = _mm256_setzero_ps();
    __m256 y2 = _mm256_setzero_ps();
    __m256 y3 = _mm256_setzero_ps();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      const __m256 q0 = _mm256_loadu_ps(query + i);
      x0 = _mm256_fmadd_ps(q0, _mm256_loadu_ps(x + i), x0);
      y0 = _mm256_fmadd_ps(q0, _mm256_loadu_ps(y + i), y0);
      const __m256 q1 = _mm256_loadu_ps(query + i + 8);
      x1 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(x + i + 8), x1);
      y1 = _mm256_fmadd_ps(q1, _mm256_loadu_ps(y + i + 8), y1);
      const __m256 q2 = _mm256_loadu_ps(query + i + 16);
      x2 = _mm256_fmadd_ps(q2, _mm256_loadu_ps(x + i + 16), x2);
      y2 = _mm256_fmadd_ps(q2, _mm256_loadu_ps(y + i + 16), y2);
      const __m256 q3 = _mm256_loadu_ps(query + i + 24);
      x3 = _mm256_fmadd_ps(q3, _mm256_loadu_ps(x + i + 24), x3);
      y3 = _mm256_fmadd_ps(q3, _mm256_loadu_ps(y + i + 24), y3);
    }
    out[r] = FinishRow(query, x, i, n, x0, x1, x2, x3);
    out[r + 1] = FinishRow(query, y, i, n, y0, y1, y2, y3);
  }
  for (; r < count; ++r) out[r] = DotAvx2(query, rows + (r * n), n);
}
#undef ENGRAM_AVX2
#endif  // ENGRAM_VINDEX_X86

struct Kernels {
  DotFunction dot;
  DotRowsFn dot_rows;
  std::string_view name;
};

Kernels ChooseKernels() {
#ifdef ENGRAM_VINDEX_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {&DotAvx2, &DotRowsAvx2, "avx2+fma"};
  }
#endif
  return {&DotPortable, &DotRowsPortable, "portable"};
}

const Kernels& ActiveKernels() {
  static const Kernels kernels = ChooseKernels();
  return kernels;
}

// CheckVector's work; also yields the squared norm for NormalizeInPlace.
Status CheckAndMeasure(std::span<const float> v, size_t dimension, double* norm2) {
  if (v.size() != dimension) {
    return InvalidArgument("vindex: check vector: wrong dimension: got " +
                           std::to_string(v.size()) + ", want " + std::to_string(dimension));
  }
  // One branch-free pass (four partial sums, which the compiler can keep
  // in SIMD registers); a NaN or infinity makes the sum non-finite, and only
  // then does a second pass look for the component to name.
  double partial[4] = {};
  size_t i = 0;
  for (; i + 4 <= v.size(); i += 4) {
    for (size_t j = 0; j < 4; ++j) {
      partial[j] += static_cast<double>(v[i + j]) * static_cast<double>(v[i + j]);
    }
  }
  for (; i < v.size(); ++i) partial[0] += static_cast<double>(v[i]) * static_cast<double>(v[i]);
  const double sum = (partial[0] + partial[1]) + (partial[2] + partial[3]);
  if (!std::isfinite(sum)) {
    for (size_t c = 0; c < v.size(); ++c) {
      if (std::isnan(v[c])) {
        return InvalidArgument("vindex: check vector: NaN at component " + std::to_string(c));
      }
      if (std::isinf(v[c])) {
        return InvalidArgument("vindex: check vector: infinity at component " + std::to_string(c));
      }
    }
  }
  if (sum == 0.0) return InvalidArgument("vindex: check vector: zero norm");
  *norm2 = sum;
  return Status::OK();
}

}  // namespace

float DotPortable(const float* a, const float* b, size_t n) {
  // Eight independent partial sums: the compiler turns the inner loop into
  // SIMD without reassociating anything.
  float acc[8] = {};
  size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    for (size_t j = 0; j < 8; ++j) acc[j] += a[i + j] * b[i + j];
  }
  float sum = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
  for (; i < n; ++i) sum += a[i] * b[i];
  return sum;
}

float Dot(const float* a, const float* b, size_t n) { return ActiveKernels().dot(a, b, n); }

void DotRows(const float* query, const float* rows, size_t count, size_t n, float* out) {
  ActiveKernels().dot_rows(query, rows, count, n, out);
}

DotFunction DotKernel() { return ActiveKernels().dot; }

std::string_view DotKernelName() { return ActiveKernels().name; }

Status CheckVector(std::span<const float> v, size_t dimension) {
  double norm2 = 0.0;
  return CheckAndMeasure(v, dimension, &norm2);
}

Status NormalizeInPlace(std::span<float> v) {
  double norm2 = 0.0;
  ENGRAM_RETURN_IF_ERROR(CheckAndMeasure(v, v.size(), &norm2));
  const double scale = 1.0 / std::sqrt(norm2);
  for (float& x : v) x = static_cast<float>(static_cast<double>(x) * scale);
  return Status::OK();
}

Status CheckWindows(std::span<const float> v, size_t dimension, size_t max_windows) {
  if (max_windows <= 1) return CheckVector(v, dimension);
  const size_t windows = VectorsInBlob(v.size() * sizeof(float), dimension, max_windows);
  if (windows == 0) {
    return InvalidArgument("vindex: check vector: wrong size: got " + std::to_string(v.size()) +
                           " floats, want a multiple of " + std::to_string(dimension) +
                           ", at most " + std::to_string(dimension * max_windows));
  }
  for (size_t w = 0; w < windows; ++w) {
    Status ok = CheckVector(v.subspan(w * dimension, dimension), dimension);
    if (!ok.ok()) {
      // CheckVector's problem, after its "vindex: check vector: " prefix.
      constexpr std::string_view kPrefix = "vindex: check vector: ";
      return InvalidArgument(std::string(kPrefix) + "window " + std::to_string(w) + ": " +
                             ok.message().substr(kPrefix.size()));
    }
  }
  return Status::OK();
}

Status CheckVectorBlob(std::string_view blob, size_t dimension, size_t max_windows) {
  const size_t windows = VectorsInBlob(blob.size(), dimension, max_windows);
  if (windows == 0) {
    return InvalidArgument(std::to_string(blob.size()) + " bytes, want " +
                           BlobSizeWanted(dimension, max_windows));
  }
  std::vector<float> v(windows * dimension);
  std::memcpy(v.data(), blob.data(), blob.size());
  return CheckWindows(v, dimension, max_windows);
}

Status NormalizeWindowsInPlace(std::span<float> v, size_t dimension, size_t max_windows) {
  ENGRAM_RETURN_IF_ERROR(CheckWindows(v, dimension, max_windows));
  for (size_t begin = 0; begin < v.size(); begin += dimension) {
    ENGRAM_RETURN_IF_ERROR(NormalizeInPlace(v.subspan(begin, dimension)));
  }
  return Status::OK();
}

}  // namespace engram
