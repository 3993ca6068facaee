// The numeric kernels of the USE-Lite forward pass (use_lite_encoder.h),
// written to follow the original TensorFlow graph op by op. Matrices are
// row-major float32; a "packed" batch stacks the tokens of several
// sentences as rows, sentence s owning rows [offsets[s], offsets[s + 1]).
// Matrix products go to OpenBLAS (cblas_sgemm), whose own thread pool
// (OPENBLAS_NUM_THREADS) may split a large one.
//
// Thread-safety: pure functions of their arguments; callers give each
// thread its own output buffers.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_KERNELS_H_
#define ENGRAM_SRC_EMBED_USE_LITE_KERNELS_H_

#include <cstddef>
#include <vector>

namespace engram {

// y[rows, out] = x[rows, in] · kernel[in, out] + bias[out].
void UseLiteDense(const float* x, size_t rows, size_t in, const float* kernel, const float* bias,
                  size_t out, float* y);

// Per row of x[rows, dim]: scale * (x - mean) / sqrt(variance + epsilon)
// + bias, the variance being the mean square deviation (biased). `y` may
// be `x`.
void UseLiteLayerNorm(const float* x, size_t rows, size_t dim, const float* scale,
                      const float* bias, float epsilon, float* y);

// x = max(x, 0) over `count` values.
void UseLiteRelu(float* x, size_t count);

// Multi-head self-attention of a packed batch. `qkv` is [rows, 3 * dim]:
// queries, keys and values side by side, each split into `heads` heads of
// dim / heads columns. Per sentence and head: softmax((q * query_scale) ·
// kᵀ) · v over that sentence's own tokens only (the original masks padding
// with -1e9, which leaves exactly these weights). Writes out[rows, dim],
// heads side by side. `scratch` is resized as needed.
void UseLiteAttention(const float* qkv, const std::vector<size_t>& offsets, size_t dim,
                      size_t heads, float query_scale, float* out, std::vector<float>* scratch);

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_USE_LITE_KERNELS_H_
