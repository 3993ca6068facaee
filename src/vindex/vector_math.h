// Vector math for the indexes: dot products and vector checks.
//
// Dot() picks its kernel once per process: AVX2+FMA when the CPU has them
// (checked at run time, so the default build needs no -march flag), else a
// portable loop the compiler vectorises for the baseline ISA. Within one
// process every dot product of the same two vectors gives the same float,
// whether it comes from Dot() or DotRows(): both add the products in the
// same order. That is what lets FlatIndex and HnswIndex report equal scores
// for equal vectors, and Score() equal Search().
//
// Thread-safety: all functions are pure (the kernel choice is made once,
// thread-safely).
#ifndef ENGRAM_SRC_VINDEX_VECTOR_MATH_H_
#define ENGRAM_SRC_VINDEX_VECTOR_MATH_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "engram/status.h"

namespace engram {

// Sum of a[i] * b[i] for i in [0, n). Unaligned pointers are fine.
float Dot(const float* a, const float* b, size_t n);

// out[r] = Dot(query, rows + r * n, n) for r in [0, count): `count` rows of
// `n` floats stored one after another, read in order, one row at a time:
// a single forward stream, which the hardware prefetcher follows at the
// memory's bandwidth (100,000 rows of 512 cost 1.03x a plain read of their
// bytes in bench/RESULTS-scan.md).
void DotRows(const float* query, const float* rows, size_t count, size_t n, float* out);

// The kernel Dot() calls, for callers that cannot afford Dot()'s one extra
// indirection per call (a graph index's distance function).
using DotFunction = float (*)(const float* a, const float* b, size_t n);
DotFunction DotKernel();

// The kernel Dot() uses: "avx2+fma" or "portable".
std::string_view DotKernelName();

// The portable kernel, whatever the CPU; for tests that compare kernels.
float DotPortable(const float* a, const float* b, size_t n);

// Int8 codes, for a fast first pass over many rows (FlatIndexOptions::
// int8_scan). A stored row becomes int8 codes and one scale, code[i] =
// round(v[i] / scale) with scale = max|v[i]| / 127; a query becomes int16
// codes in [-kQueryCodeMax, kQueryCodeMax] the same way. Their integer dot
// product times both scales approximates Dot(); the sum is exact (no
// rounding, any order), so every kernel gives the same integer.
inline constexpr int kQueryCodeMax = 1023;
// Largest dimension whose code sums cannot overflow int32:
// 127 * kQueryCodeMax * n < 2^31.
inline constexpr size_t kMaxInt8Dimension = 16384;

// Writes v.size() codes to `codes` and returns the scale (0 for a zero
// vector, whose codes are all 0).
float QuantizeInt8(std::span<const float> v, int8_t* codes);
float QuantizeQueryCodes(std::span<const float> v, int16_t* codes);

// out[r] = sum over i of query[i] * rows[r * n + i], for `count` rows of
// `n` codes one after another (n <= kMaxInt8Dimension).
void DotRowsInt8(const int16_t* query, const int8_t* rows, size_t count, size_t n, int32_t* out);

// The portable DotRowsInt8, whatever the CPU; for tests that compare kernels.
void DotRowsInt8Portable(const int16_t* query, const int8_t* rows, size_t count, size_t n,
                         int32_t* out);

// OK when `v` has `dimension` components, all finite, and a non-zero norm.
// Otherwise InvalidArgument naming the first problem, e.g.
// "vindex: check vector: wrong dimension: got 3, want 4",
// "vindex: check vector: NaN at component 7",
// "vindex: check vector: infinity at component 0",
// "vindex: check vector: zero norm".
Status CheckVector(std::span<const float> v, size_t dimension);

// Checks `v` as CheckVector(v, v.size()) and scales it to unit L2 norm (the
// norm is summed in double, so tiny and huge finite components work).
// On error `v` is unchanged.
Status NormalizeInPlace(std::span<float> v);

// A document's vectors in a space with up to `max_windows` per document
// (EmbeddingSpace::MaxVectorsPerDocument, src/common/vector_blob.h): OK when
// `v` is 1 to max_windows vectors of `dimension` floats one after another,
// each passing CheckVector. With max_windows 1 this is CheckVector; else a
// size that fits no count is "vindex: check vector: wrong size: got 700
// floats, want a multiple of 512, at most 8192", and a bad window is named:
// "vindex: check vector: window 2: zero norm".
Status CheckWindows(std::span<const float> v, size_t dimension, size_t max_windows);

// CheckWindows, then each window scaled to unit L2 norm as NormalizeInPlace
// does. On error `v` is unchanged.
Status NormalizeWindowsInPlace(std::span<float> v, size_t dimension, size_t max_windows);

// CheckWindows on a stored blob's bytes: InvalidArgument "700 bytes, want
// 2048 bytes" (src/common/vector_blob.h's BlobSizeWanted) when its size fits
// no count of vectors, else CheckWindows's answer for its floats.
Status CheckVectorBlob(std::string_view blob, size_t dimension, size_t max_windows);

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_VECTOR_MATH_H_
