// The numeric kernels of the USE-Lite forward pass (use_lite_encoder.h),
// written to follow the original TensorFlow graph op by op. Matrices are
// row-major float32; a "packed" batch stacks the tokens of several
// sentences as rows, sentence s owning rows [offsets[s], offsets[s + 1]).
//
// Dense layers have two products over the same weights (UseLitePackedDense
// holds both layouts):
//  - UseLiteDense, our own kernel over column panels: no per-call set-up
//    or copies, the faster for a handful of rows (a search query). Every
//    output element is summed over the input in index order whatever the
//    row count, so a row gets bit-identical values alone or in any batch.
//    It has three builds, the best the CPU runs chosen once per process
//    (the default compile flags assume none): AVX-512, AVX2+FMA, and
//    portable C++. The two with FMA give bit-identical values; the
//    portable one differs by float rounding only (FMA rounds once);
//  - UseLiteDenseSgemm, OpenBLAS cblas_sgemm over the row-major kernel,
//    the faster for many rows (an import). OpenBLAS blocks the sums its own
//    way, so its values differ from UseLiteDense's in the last bits, and
//    may differ by the row count.
// Both apply the same epilogue (bias, residual, ReLU) in the same order.
//
// Thread-safety: pure functions of their arguments; a UseLitePackedDense
// is immutable once built. Callers give each thread its own output buffers.
// UseLiteDenseSgemm runs on as many threads as OpenBLAS is set to
// (one, as blas_api.h loads it), inside the call.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_KERNELS_H_
#define ENGRAM_SRC_EMBED_USE_LITE_KERNELS_H_

#include <cstddef>
#include <vector>

#include "src/embed/blas_api.h"

namespace engram {

// Which build of the dense kernel runs; each later one needs what the one
// before it needs.
enum class UseLiteIsa {
  kPortable,  // plain C++ (SSE2 on x86-64)
  kAvx2,      // AVX2 + FMA, x86-64 only
  kAvx512,    // AVX-512F as well: the same values as kAvx2, bit for bit
};

// The best build this CPU runs (kAvx512 when it has AVX-512F, AVX2 and FMA;
// kAvx2 when it has AVX2 and FMA).
UseLiteIsa UseLiteBestIsa();
// Whether this CPU runs `isa`.
bool UseLiteRuns(UseLiteIsa isa);

// Columns per panel of a packed dense kernel.
inline constexpr size_t kUseLitePanelWidth = 16;

// Column panels of kUseLitePanelWidth for `out` columns.
constexpr size_t UseLitePanelCount(size_t out) {
  return (out + kUseLitePanelWidth - 1) / kUseLitePanelWidth;
}

// A dense layer, kernel[in, out] and bias[out], in two layouts of the
// kernel: row-major [in, out] (for UseLiteDenseSgemm), and column panels of
// kPanelWidth columns, each stored [in][16] contiguously and 64-byte
// aligned, the last panel padded with zeros (for UseLiteDense). Uses twice
// the memory of the original (plus padding) when it owns them, none when
// it views arrays laid out beforehand (the model file stores both:
// use_lite_model_file.h).
class UseLitePackedDense {
 public:
  static constexpr size_t kPanelWidth = kUseLitePanelWidth;

  UseLitePackedDense() = default;
  // Copies `kernel` ([in, out], row-major) and `bias` ([out]).
  UseLitePackedDense(const float* kernel, const float* bias, size_t in, size_t out);
  // Views `panels` (as UseLitePackPanels writes them, 64-byte aligned),
  // `kernel` ([in, out], row-major) and `bias` ([out]), which must outlive
  // it. `out` must be a multiple of kPanelWidth, so that the bias needs no
  // padding.
  static UseLitePackedDense View(const float* panels, const float* kernel, const float* bias,
                                 size_t in, size_t out);
  // Move-only: a copy would lose the alignment of the panels.
  UseLitePackedDense(const UseLitePackedDense&) = delete;
  UseLitePackedDense& operator=(const UseLitePackedDense&) = delete;
  UseLitePackedDense(UseLitePackedDense&&) = default;
  UseLitePackedDense& operator=(UseLitePackedDense&&) = default;
  ~UseLitePackedDense() = default;

  size_t In() const { return in_; }
  size_t Out() const { return out_; }
  size_t Panels() const { return UseLitePanelCount(out_); }
  // Panel p: in * kPanelWidth values, row k holding columns
  // [p * 16, p * 16 + 16) of kernel row k.
  const float* Panel(size_t p) const { return panels_ + p * in_ * kPanelWidth; }
  // The kernel, [in, out] row-major.
  const float* Kernel() const { return kernel_; }
  // The bias, padded with zeros to Panels() * kPanelWidth.
  const float* Bias() const { return bias_; }

 private:
  size_t in_ = 0;
  size_t out_ = 0;
  const float* panels_ = nullptr;  // into storage_, or viewed
  const float* kernel_ = nullptr;  // into kernel_storage_, or viewed
  const float* bias_ = nullptr;    // into bias_storage_, or viewed
  // Owned copies (empty for a view). Moving a vector keeps its buffer, so
  // the pointers above stay valid across moves.
  std::vector<float> storage_;  // panels, starting 64-byte aligned
  std::vector<float> kernel_storage_;
  std::vector<float> bias_storage_;
};

// Writes kernel[in, out] (row-major) into `packed` in panel order:
// UseLitePanelCount(out) * in * kUseLitePanelWidth floats, the last panel's
// missing columns zero.
void UseLitePackPanels(const float* kernel, size_t in, size_t out, float* packed);

// What UseLiteDense does after the product, in this order: add the bias,
// then add `residual` (when given), then ReLU (when asked).
struct UseLiteDenseEpilogue {
  const float* residual = nullptr;  // [rows, out], may be y itself; default none
  bool relu = false;                // max(value, 0); default off
};

// y[rows, out] = x[rows, in] · kernel + bias, then the epilogue, on the
// panels. `y` must not overlap `x`. Summation over `in` is in index order
// for every element. Runs the build `isa`, or the best this CPU runs when
// it does not run `isa`.
void UseLiteDense(const float* x, size_t rows, const UseLitePackedDense& dense, float* y,
                  const UseLiteDenseEpilogue& epilogue = {}, UseLiteIsa isa = UseLiteBestIsa());

// The same product on OpenBLAS: cblas_sgemm over the row-major kernel into
// y (beta 0), then the epilogue. When the residual is y itself, the product
// is accumulated onto it instead (beta 1) and the bias added after: the
// same sum in another order. `y` must not overlap `x`; rows, in and out
// must fit in an int.
void UseLiteDenseSgemm(const BlasApi& blas, const float* x, size_t rows,
                       const UseLitePackedDense& dense, float* y,
                       const UseLiteDenseEpilogue& epilogue = {});

// Per row of x[rows, dim]: scale * (x - mean) / sqrt(variance + epsilon)
// + bias, the variance being the mean square deviation (biased). `y` may
// be `x`.
void UseLiteLayerNorm(const float* x, size_t rows, size_t dim, const float* scale,
                      const float* bias, float epsilon, float* y);

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
