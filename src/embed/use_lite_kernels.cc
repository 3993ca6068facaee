#include "src/embed/use_lite_kernels.h"

#include <algorithm>
#include <cmath>
#include <cstdint>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define ENGRAM_USE_LITE_HAVE_AVX2 1
#else
#define ENGRAM_USE_LITE_HAVE_AVX2 0
#endif

namespace engram {
namespace {

constexpr size_t kWidth = UseLitePackedDense::kPanelWidth;
// Rows of x per pass over a group of panels: 48 rows of at most 1536
// floats (288 KB) stay in L2 while the group's panels are read once per
// block of 6 rows.
constexpr size_t kRowChunk = 48;
// Bytes of panels in a group (kept in L2 across a chunk's row blocks).
constexpr size_t kGroupBytes = size_t{192} * 1024;
// Rows per register tile: 6 rows by one 16-column panel is 12 AVX2
// accumulators (6 AVX-512 ones, which TilePanels widens to two panels).
constexpr size_t kTileRows = 6;

// Panels per register tile of `rows` rows in build `isa`: as many as keep
// the accumulators in registers (16 of 256 bits for AVX2, of which the
// tile takes 12; 32 of 512 bits for AVX-512, of which it takes up to 12,
// a panel being one register).
constexpr size_t TilePanels(UseLiteIsa isa, size_t rows) {
  if (isa == UseLiteIsa::kAvx512) return rows <= 3 ? 4 : 2;
  return rows <= 1 ? 4 : rows <= 3 ? 2 : 1;
}

// One register tile: R rows of x against C adjacent panels.
struct TileArgs {
  const float* x = nullptr;         // first row of the tile
  size_t in = 0;                    // columns of x (and rows of each panel)
  const float* panel = nullptr;     // first panel; the next starts in * kWidth later
  const float* bias = nullptr;      // padded bias at the tile's first column
  const float* residual = nullptr;  // at the tile's first row and column, or null
  float* y = nullptr;               // at the tile's first row and column
  size_t ld = 0;                    // row stride of y and residual (the layer's out)
  size_t columns = 0;               // columns to write, at most C * kWidth
  bool relu = false;
};

// The epilogue of one value: bias, residual (when `residual` is not
// null), ReLU, in that order.
inline float Epilogue(float sum, float bias, const float* residual, bool relu) {
  float value = sum + bias;
  if (residual != nullptr) value = value + *residual;
  if (relu) value = std::max(value, 0.0f);
  return value;
}

// Epilogue of the value at row r, column c of a tile.
inline float Finish(float sum, size_t r, size_t c, const TileArgs& a) {
  return Epilogue(sum, a.bias[c], a.residual == nullptr ? nullptr : a.residual + r * a.ld + c,
                  a.relu);
}

// Epilogue in place over y[rows, out], which holds the sums; `residual`
// ([rows, out]) may be null.
void FinishRowsPortable(float* y, size_t rows, size_t out, const float* bias, const float* residual,
                        bool relu) {
  for (size_t r = 0; r < rows; ++r) {
    float* row = y + r * out;
    const float* residual_row = residual == nullptr ? nullptr : residual + r * out;
    for (size_t c = 0; c < out; ++c) {
      row[c] =
          Epilogue(row[c], bias[c], residual_row == nullptr ? nullptr : residual_row + c, relu);
    }
  }
}

// Portable tile. Without FMA contraction (ISO C++ mode) each step rounds
// the product and the sum separately.
template <size_t R, size_t C>
void TilePortable(const TileArgs& a) {
  float acc[R][C * kWidth] = {};
  const size_t stride = a.in * kWidth;
  for (size_t k = 0; k < a.in; ++k) {
    for (size_t r = 0; r < R; ++r) {
      const float xv = a.x[r * a.in + k];
      for (size_t c = 0; c < C; ++c) {
        const float* w = a.panel + c * stride + k * kWidth;
        float* row = acc[r] + c * kWidth;
        for (size_t j = 0; j < kWidth; ++j) row[j] += xv * w[j];
      }
    }
  }
  for (size_t r = 0; r < R; ++r) {
    for (size_t c = 0; c < a.columns; ++c) {
      a.y[r * a.ld + c] = Finish(acc[r][c], r, c, a);
    }
  }
}

#if ENGRAM_USE_LITE_HAVE_AVX2
// Epilogue of 8 adjacent values, the same operations as Epilogue.
__attribute__((target("avx2,fma"))) inline __m256 EpilogueAvx2(__m256 sum, const float* bias,
                                                               const float* residual, bool relu) {
  __m256 value = _mm256_add_ps(sum, _mm256_loadu_ps(bias));
  if (residual != nullptr) value = _mm256_add_ps(value, _mm256_loadu_ps(residual));
  if (relu) value = _mm256_max_ps(_mm256_setzero_ps(), value);
  return value;
}

// FinishRowsPortable, 8 values at a time.
__attribute__((target("avx2,fma"))) void FinishRowsAvx2(float* y, size_t rows, size_t out,
                                                        const float* bias, const float* residual,
                                                        bool relu) {
  for (size_t r = 0; r < rows; ++r) {
    float* row = y + r * out;
    const float* residual_row = residual == nullptr ? nullptr : residual + r * out;
    size_t c = 0;
    for (; c + 8 <= out; c += 8) {
      _mm256_storeu_ps(row + c,
                       EpilogueAvx2(_mm256_loadu_ps(row + c), bias + c,
                                    residual_row == nullptr ? nullptr : residual_row + c, relu));
    }
    for (; c < out; ++c) {
      row[c] =
          Epilogue(row[c], bias[c], residual_row == nullptr ? nullptr : residual_row + c, relu);
    }
  }
}

// AVX2 tile. Accumulators are named variables (slot s = r * C + c holds
// columns 0-7 in a<s>0 and 8-15 in a<s>1) so the compiler keeps all 12 in
// registers; R * C <= 6 and the shapes used are R <= 6 with C = 1, R <= 3
// with C = 2, and R = 1 with C = 4.
template <size_t R, size_t C>
__attribute__((target("avx2,fma"))) void TileAvx2(const TileArgs& a) {
  static_assert(R * C <= 6 && (C == 1 || (C == 2 && R <= 3) || (C == 4 && R == 1)));
  const __m256 zero = _mm256_setzero_ps();
  __m256 a00 = zero, a01 = zero, a10 = zero, a11 = zero, a20 = zero, a21 = zero;
  __m256 a30 = zero, a31 = zero, a40 = zero, a41 = zero, a50 = zero, a51 = zero;
  const size_t stride = a.in * kWidth;
  const float* x0 = a.x;
  const float* x1 = x0 + a.in;
  const float* x2 = x1 + a.in;
  const float* x3 = x2 + a.in;
  const float* x4 = x3 + a.in;
  const float* x5 = x4 + a.in;
  const float* w = a.panel;
  for (size_t k = 0; k < a.in; ++k, w += kWidth) {
    const __m256 w00 = _mm256_load_ps(w);
    const __m256 w01 = _mm256_load_ps(w + 8);
    if constexpr (C == 1) {
      __m256 b = _mm256_broadcast_ss(x0 + k);
      a00 = _mm256_fmadd_ps(b, w00, a00);
      a01 = _mm256_fmadd_ps(b, w01, a01);
      if constexpr (R > 1) {
        b = _mm256_broadcast_ss(x1 + k);
        a10 = _mm256_fmadd_ps(b, w00, a10);
        a11 = _mm256_fmadd_ps(b, w01, a11);
      }
      if constexpr (R > 2) {
        b = _mm256_broadcast_ss(x2 + k);
        a20 = _mm256_fmadd_ps(b, w00, a20);
        a21 = _mm256_fmadd_ps(b, w01, a21);
      }
      if constexpr (R > 3) {
        b = _mm256_broadcast_ss(x3 + k);
        a30 = _mm256_fmadd_ps(b, w00, a30);
        a31 = _mm256_fmadd_ps(b, w01, a31);
      }
      if constexpr (R > 4) {
        b = _mm256_broadcast_ss(x4 + k);
        a40 = _mm256_fmadd_ps(b, w00, a40);
        a41 = _mm256_fmadd_ps(b, w01, a41);
      }
      if constexpr (R > 5) {
        b = _mm256_broadcast_ss(x5 + k);
        a50 = _mm256_fmadd_ps(b, w00, a50);
        a51 = _mm256_fmadd_ps(b, w01, a51);
      }
    } else if constexpr (C == 2) {
      const __m256 w10 = _mm256_load_ps(w + stride);
      const __m256 w11 = _mm256_load_ps(w + stride + 8);
      __m256 b = _mm256_broadcast_ss(x0 + k);
      a00 = _mm256_fmadd_ps(b, w00, a00);
      a01 = _mm256_fmadd_ps(b, w01, a01);
      a10 = _mm256_fmadd_ps(b, w10, a10);
      a11 = _mm256_fmadd_ps(b, w11, a11);
      if constexpr (R > 1) {
        b = _mm256_broadcast_ss(x1 + k);
        a20 = _mm256_fmadd_ps(b, w00, a20);
        a21 = _mm256_fmadd_ps(b, w01, a21);
        a30 = _mm256_fmadd_ps(b, w10, a30);
        a31 = _mm256_fmadd_ps(b, w11, a31);
      }
      if constexpr (R > 2) {
        b = _mm256_broadcast_ss(x2 + k);
        a40 = _mm256_fmadd_ps(b, w00, a40);
        a41 = _mm256_fmadd_ps(b, w01, a41);
        a50 = _mm256_fmadd_ps(b, w10, a50);
        a51 = _mm256_fmadd_ps(b, w11, a51);
      }
    } else {
      const __m256 b = _mm256_broadcast_ss(x0 + k);
      a00 = _mm256_fmadd_ps(b, w00, a00);
      a01 = _mm256_fmadd_ps(b, w01, a01);
      a10 = _mm256_fmadd_ps(b, _mm256_load_ps(w + stride), a10);
      a11 = _mm256_fmadd_ps(b, _mm256_load_ps(w + stride + 8), a11);
      a20 = _mm256_fmadd_ps(b, _mm256_load_ps(w + 2 * stride), a20);
      a21 = _mm256_fmadd_ps(b, _mm256_load_ps(w + 2 * stride + 8), a21);
      a30 = _mm256_fmadd_ps(b, _mm256_load_ps(w + 3 * stride), a30);
      a31 = _mm256_fmadd_ps(b, _mm256_load_ps(w + 3 * stride + 8), a31);
    }
  }
  const __m256 sums[12] = {a00, a01, a10, a11, a20, a21, a30, a31, a40, a41, a50, a51};
  if (a.columns == C * kWidth) {
    for (size_t r = 0; r < R; ++r) {
      float* y = a.y + r * a.ld;
      const float* residual = a.residual == nullptr ? nullptr : a.residual + r * a.ld;
      for (size_t v = 0; v < 2 * C; ++v) {
        _mm256_storeu_ps(y + 8 * v,
                         EpilogueAvx2(sums[2 * (r * C) + v], a.bias + 8 * v,
                                      residual == nullptr ? nullptr : residual + 8 * v, a.relu));
      }
    }
    return;
  }
  // A last, partial panel: finish the valid columns one by one.
  alignas(32) float spill[R][C * kWidth];
  for (size_t r = 0; r < R; ++r) {
    for (size_t v = 0; v < 2 * C; ++v) _mm256_store_ps(spill[r] + 8 * v, sums[2 * (r * C) + v]);
    for (size_t c = 0; c < a.columns; ++c) {
      a.y[r * a.ld + c] = Finish(spill[r][c], r, c, a);
    }
  }
}

// AVX-512 tile: a panel's 16 columns are one register, so R rows by C
// panels are R * C accumulators (TilePanels). Every value is the same
// chain of fused multiply-adds over k in index order, with the same
// epilogue, as in TileAvx2: the two builds give bit-identical values, and
// on a CPU with 512-bit FMA units this one issues half the instructions.
template <size_t R, size_t C>
__attribute__((target("avx512f"))) void TileAvx512(const TileArgs& a) {
  static_assert(R * C <= 12 && (C == 1 || C == 2 || C == 4));
  __m512 sums[R][C];
#pragma GCC unroll 6
  for (size_t r = 0; r < R; ++r) {
#pragma GCC unroll 4
    for (size_t c = 0; c < C; ++c) sums[r][c] = _mm512_setzero_ps();
  }
  const size_t stride = a.in * kWidth;
  const float* w = a.panel;
  for (size_t k = 0; k < a.in; ++k, w += kWidth) {
    __m512 weights[C];
#pragma GCC unroll 4
    for (size_t c = 0; c < C; ++c) weights[c] = _mm512_load_ps(w + c * stride);
#pragma GCC unroll 6
    for (size_t r = 0; r < R; ++r) {
      const __m512 b = _mm512_set1_ps(a.x[r * a.in + k]);
#pragma GCC unroll 4
      for (size_t c = 0; c < C; ++c) sums[r][c] = _mm512_fmadd_ps(b, weights[c], sums[r][c]);
    }
  }
  if (a.columns == C * kWidth) {
    const __m512 zero = _mm512_setzero_ps();
    for (size_t r = 0; r < R; ++r) {
      for (size_t c = 0; c < C; ++c) {
        const size_t at = r * a.ld + c * kWidth;
        __m512 value = _mm512_add_ps(sums[r][c], _mm512_loadu_ps(a.bias + c * kWidth));
        if (a.residual != nullptr) value = _mm512_add_ps(value, _mm512_loadu_ps(a.residual + at));
        // The all-lanes mask form: GCC 12's _mm512_max_ps reads an
        // undefined register and warns.
        if (a.relu) value = _mm512_maskz_max_ps(__mmask16{0xFFFF}, zero, value);
        _mm512_storeu_ps(a.y + at, value);
      }
    }
    return;
  }
  // A last, partial panel: finish the valid columns one by one.
  alignas(64) float spill[R][C * kWidth];
  for (size_t r = 0; r < R; ++r) {
    for (size_t c = 0; c < C; ++c) _mm512_store_ps(spill[r] + c * kWidth, sums[r][c]);
    for (size_t c = 0; c < a.columns; ++c) {
      a.y[r * a.ld + c] = Finish(spill[r][c], r, c, a);
    }
  }
}

bool CpuHasAvx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

bool CpuHasAvx512() {
  __builtin_cpu_init();
  return CpuHasAvx2() && __builtin_cpu_supports("avx512f");
}
#endif

template <UseLiteIsa Isa, size_t R, size_t C>
void Tile(const TileArgs& args) {
#if ENGRAM_USE_LITE_HAVE_AVX2
  if constexpr (Isa == UseLiteIsa::kAvx512) {
    TileAvx512<R, C>(args);
  } else if constexpr (Isa == UseLiteIsa::kAvx2) {
    TileAvx2<R, C>(args);
  } else {
    TilePortable<R, C>(args);
  }
#else
  TilePortable<R, C>(args);
#endif
}

// Rows [row, row + R) of y, panels [first, last): tiles of C panels, then
// single panels for what is left.
template <UseLiteIsa Isa, size_t R, size_t C>
void RowBlock(const float* x, size_t row, const UseLitePackedDense& dense, float* y,
              const UseLiteDenseEpilogue& epilogue, size_t first, size_t last) {
  TileArgs args;
  args.x = x + row * dense.In();
  args.in = dense.In();
  args.ld = dense.Out();
  args.relu = epilogue.relu;
  size_t p = first;
  auto set_panels = [&](size_t panel, size_t count) {
    const size_t column = panel * kWidth;
    args.panel = dense.Panel(panel);
    args.bias = dense.Bias() + column;
    args.y = y + row * dense.Out() + column;
    args.residual =
        epilogue.residual == nullptr ? nullptr : epilogue.residual + row * dense.Out() + column;
    args.columns = std::min(count * kWidth, dense.Out() - column);
  };
  for (; p + C <= last; p += C) {
    set_panels(p, C);
    Tile<Isa, R, C>(args);
  }
  for (; p < last; ++p) {
    set_panels(p, 1);
    Tile<Isa, R, 1>(args);
  }
}

template <UseLiteIsa Isa>
void DenseWith(const float* x, size_t rows, const UseLitePackedDense& dense, float* y,
               const UseLiteDenseEpilogue& epilogue) {
  const size_t panels = dense.Panels();
  // One block of rows reads each panel once: no grouping needed. Groups
  // are a multiple of 4 panels, the widest tile.
  const size_t panel_bytes = std::max<size_t>(dense.In(), 1) * kWidth * sizeof(float);
  const size_t group =
      rows <= kTileRows ? panels : std::max<size_t>(4, kGroupBytes / panel_bytes / 4 * 4);
  for (size_t chunk = 0; chunk < rows; chunk += kRowChunk) {
    const size_t chunk_end = std::min(rows, chunk + kRowChunk);
    for (size_t first = 0; first < panels; first += group) {
      const size_t last = std::min(panels, first + group);
      size_t r = chunk;
      for (; r + kTileRows <= chunk_end; r += kTileRows) {
        RowBlock<Isa, 6, TilePanels(Isa, 6)>(x, r, dense, y, epilogue, first, last);
      }
      switch (chunk_end - r) {
        case 5:
          RowBlock<Isa, 5, TilePanels(Isa, 5)>(x, r, dense, y, epilogue, first, last);
          break;
        case 4:
          RowBlock<Isa, 4, TilePanels(Isa, 4)>(x, r, dense, y, epilogue, first, last);
          break;
        case 3:
          RowBlock<Isa, 3, TilePanels(Isa, 3)>(x, r, dense, y, epilogue, first, last);
          break;
        case 2:
          RowBlock<Isa, 2, TilePanels(Isa, 2)>(x, r, dense, y, epilogue, first, last);
          break;
        case 1:
          RowBlock<Isa, 1, TilePanels(Isa, 1)>(x, r, dense, y, epilogue, first, last);
          break;
        default:
          break;
      }
    }
  }
}

}  // namespace

UseLiteIsa UseLiteBestIsa() {
#if ENGRAM_USE_LITE_HAVE_AVX2
  static const UseLiteIsa best = CpuHasAvx512() ? UseLiteIsa::kAvx512
                                 : CpuHasAvx2() ? UseLiteIsa::kAvx2
                                                : UseLiteIsa::kPortable;
  return best;
#else
  return UseLiteIsa::kPortable;
#endif
}

bool UseLiteRuns(UseLiteIsa isa) { return isa <= UseLiteBestIsa(); }

void UseLitePackPanels(const float* kernel, size_t in, size_t out, float* packed) {
  const size_t panels = UseLitePanelCount(out);
  for (size_t p = 0; p < panels; ++p) {
    const size_t columns = std::min(kWidth, out - p * kWidth);
    for (size_t k = 0; k < in; ++k) {
      float* row = packed + (p * in + k) * kWidth;
      std::copy_n(kernel + k * out + p * kWidth, columns, row);
      std::fill(row + columns, row + kWidth, 0.0f);
    }
  }
}

UseLitePackedDense::UseLitePackedDense(const float* kernel, const float* bias, size_t in,
                                       size_t out)
    : in_(in), out_(out), kernel_storage_(kernel, kernel + in * out) {
  constexpr size_t kAlignFloats = 64 / sizeof(float);
  storage_.resize(Panels() * in * kWidth + kAlignFloats);
  const auto address = reinterpret_cast<uintptr_t>(storage_.data());
  float* packed = storage_.data() + ((64 - address % 64) % 64) / sizeof(float);
  UseLitePackPanels(kernel, in, out, packed);
  panels_ = packed;
  kernel_ = kernel_storage_.data();
  bias_storage_.assign(Panels() * kWidth, 0.0f);
  std::copy_n(bias, out, bias_storage_.begin());
  bias_ = bias_storage_.data();
}

UseLitePackedDense UseLitePackedDense::View(const float* panels, const float* kernel,
                                            const float* bias, size_t in, size_t out) {
  UseLitePackedDense dense;
  dense.in_ = in;
  dense.out_ = out;
  dense.panels_ = panels;
  dense.kernel_ = kernel;
  dense.bias_ = bias;
  return dense;
}

void UseLiteDense(const float* x, size_t rows, const UseLitePackedDense& dense, float* y,
                  const UseLiteDenseEpilogue& epilogue, UseLiteIsa isa) {
  if (rows == 0 || dense.Out() == 0) return;
  switch (UseLiteRuns(isa) ? isa : UseLiteBestIsa()) {
    case UseLiteIsa::kAvx512:
      DenseWith<UseLiteIsa::kAvx512>(x, rows, dense, y, epilogue);
      break;
    case UseLiteIsa::kAvx2:
      DenseWith<UseLiteIsa::kAvx2>(x, rows, dense, y, epilogue);
      break;
    case UseLiteIsa::kPortable:
      DenseWith<UseLiteIsa::kPortable>(x, rows, dense, y, epilogue);
      break;
  }
}

void UseLiteDenseSgemm(const BlasApi& blas, const float* x, size_t rows,
                       const UseLitePackedDense& dense, float* y,
                       const UseLiteDenseEpilogue& epilogue) {
  if (rows == 0 || dense.Out() == 0) return;
  const size_t in = dense.In();
  const size_t out = dense.Out();
  // A residual that is y itself would be overwritten by beta 0: add the
  // product onto it instead.
  const bool onto_residual = epilogue.residual == y;
  blas.sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<blasint>(rows),
             static_cast<blasint>(out), static_cast<blasint>(in), 1.0f, x, static_cast<blasint>(in),
             dense.Kernel(), static_cast<blasint>(out), onto_residual ? 1.0f : 0.0f, y,
             static_cast<blasint>(out));
  const float* residual = onto_residual ? nullptr : epilogue.residual;
#if ENGRAM_USE_LITE_HAVE_AVX2
  if (UseLiteRuns(UseLiteIsa::kAvx2)) {
    FinishRowsAvx2(y, rows, out, dense.Bias(), residual, epilogue.relu);
    return;
  }
#endif
  FinishRowsPortable(y, rows, out, dense.Bias(), residual, epilogue.relu);
}

void UseLiteLayerNorm(const float* x, size_t rows, size_t dim, const float* scale,
                      const float* bias, float epsilon, float* y) {
  for (size_t r = 0; r < rows; ++r) {
    const float* in = x + r * dim;
    float* out = y + r * dim;
    double sum = 0.0;
    for (size_t c = 0; c < dim; ++c) sum += in[c];
    const float mean = static_cast<float>(sum / static_cast<double>(dim));
    double square_sum = 0.0;
    for (size_t c = 0; c < dim; ++c) {
      const float deviation = in[c] - mean;
      square_sum += static_cast<double>(deviation) * deviation;
    }
    const float variance = static_cast<float>(square_sum / static_cast<double>(dim));
    const float inverse = 1.0f / std::sqrt(variance + epsilon);
    for (size_t c = 0; c < dim; ++c) out[c] = scale[c] * inverse * (in[c] - mean) + bias[c];
  }
}

void UseLiteAttention(const float* qkv, const std::vector<size_t>& offsets, size_t dim,
                      size_t heads, float query_scale, float* out, std::vector<float>* scratch) {
  const size_t head_dim = dim / heads;
  const size_t ld = 3 * dim;
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    const size_t first = offsets[s];
    const size_t length = offsets[s + 1] - first;
    if (length == 0) continue;
    // Keys transposed ([head_dim, length]) so that every inner loop runs
    // over contiguous values and sums in a fixed order.
    scratch->resize(head_dim * length + length * length);
    float* keys = scratch->data();
    float* weights = keys + head_dim * length;
    for (size_t h = 0; h < heads; ++h) {
      const float* q = qkv + first * ld + h * head_dim;
      const float* k = q + dim;
      const float* v = q + 2 * dim;
      for (size_t j = 0; j < length; ++j) {
        for (size_t c = 0; c < head_dim; ++c) keys[c * length + j] = k[j * ld + c];
      }
      for (size_t t = 0; t < length; ++t) {
        float* row = weights + t * length;
        std::fill_n(row, length, 0.0f);
        for (size_t c = 0; c < head_dim; ++c) {
          const float query = q[t * ld + c] * query_scale;
          const float* key = keys + c * length;
          for (size_t j = 0; j < length; ++j) row[j] += query * key[j];
        }
        const float peak = *std::max_element(row, row + length);
        float total = 0.0f;
        for (size_t j = 0; j < length; ++j) {
          row[j] = std::exp(row[j] - peak);
          total += row[j];
        }
        for (size_t j = 0; j < length; ++j) row[j] /= total;
        float* result = out + (first + t) * dim + h * head_dim;
        std::fill_n(result, head_dim, 0.0f);
        for (size_t j = 0; j < length; ++j) {
          const float weight = row[j];
          const float* value = v + j * ld;
          for (size_t c = 0; c < head_dim; ++c) result[c] += weight * value[c];
        }
      }
    }
  }
}

}  // namespace engram
