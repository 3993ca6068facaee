#include "src/vindex/vector_math.h"

#include <algorithm>
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

using DotRowsInt8Fn = void (*)(const int16_t*, const int8_t*, size_t, size_t, int32_t*);

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

// Sixteen codes per step: widened to int16, multiplied by the query's and
// summed in pairs into eight int32 lanes (no sum can overflow: see
// kMaxInt8Dimension).
ENGRAM_AVX2 void DotRowsInt8Avx2(const int16_t* query, const int8_t* rows, size_t count, size_t n,
                                 int32_t* out) {
  for (size_t r = 0; r < count; ++r) {
    const int8_t* row = rows + (r * n);
    __m256i acc0 = _mm256_setzero_si256();
    __m256i acc1 = _mm256_setzero_si256();
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
      const __m256i c0 =
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i)));
      const __m256i c1 =
          _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(row + i + 16)));
      acc0 = _mm256_add_epi32(
          acc0,
          _mm256_madd_epi16(c0, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(query + i))));
      acc1 = _mm256_add_epi32(
          acc1, _mm256_madd_epi16(
                    c1, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(query + i + 16))));
    }
    const __m256i acc = _mm256_add_epi32(acc0, acc1);
    __m128i sum = _mm_add_epi32(_mm256_castsi256_si128(acc), _mm256_extracti128_si256(acc, 1));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0x4e));
    sum = _mm_add_epi32(sum, _mm_shuffle_epi32(sum, 0xb1));
    int32_t total = _mm_cvtsi128_si32(sum);
    for (; i < n; ++i) total += static_cast<int32_t>(query[i]) * row[i];
    out[r] = total;
  }
}
#undef ENGRAM_AVX2
#endif  // ENGRAM_VINDEX_X86

struct Kernels {
  DotFunction dot;
  DotRowsInt8Fn dot_rows_int8;
  std::string_view name;
};

Kernels ChooseKernels() {
#ifdef ENGRAM_VINDEX_X86
  __builtin_cpu_init();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) {
    return {&DotAvx2, &DotRowsInt8Avx2, "avx2+fma"};
  }
#endif
  return {&DotPortable, &DotRowsInt8Portable, "portable"};
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

void DotRowsInt8Portable(const int16_t* query, const int8_t* rows, size_t count, size_t n,
                         int32_t* out) {
  for (size_t r = 0; r < count; ++r) {
    const int8_t* row = rows + (r * n);
    int32_t total = 0;
    for (size_t i = 0; i < n; ++i) total += static_cast<int32_t>(query[i]) * row[i];
    out[r] = total;
  }
}

void DotRowsInt8(const int16_t* query, const int8_t* rows, size_t count, size_t n, int32_t* out) {
  ActiveKernels().dot_rows_int8(query, rows, count, n, out);
}

namespace {

// Codes of `v` in [-code_max, code_max], scaled by its largest magnitude.
template <typename Code>
float Quantize(std::span<const float> v, float code_max, Code* codes) {
  float largest = 0.0f;
  for (const float x : v) largest = std::max(largest, std::fabs(x));
  if (largest == 0.0f) {
    std::fill(codes, codes + v.size(), Code{0});
    return 0.0f;
  }
  const float scale = largest / code_max;
  for (size_t i = 0; i < v.size(); ++i) {
    codes[i] = static_cast<Code>(std::clamp(std::nearbyint(v[i] / scale), -code_max, code_max));
  }
  return scale;
}

}  // namespace

float QuantizeInt8(std::span<const float> v, int8_t* codes) { return Quantize(v, 127.0f, codes); }

float QuantizeQueryCodes(std::span<const float> v, int16_t* codes) {
  return Quantize(v, static_cast<float>(kQueryCodeMax), codes);
}

void DotRows(const float* query, const float* rows, size_t count, size_t n, float* out) {
  const DotFunction dot = ActiveKernels().dot;
  for (size_t r = 0; r < count; ++r) out[r] = dot(query, rows + (r * n), n);
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
