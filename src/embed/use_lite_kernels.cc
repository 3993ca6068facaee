#include "src/embed/use_lite_kernels.h"

#include <cblas.h>

#include <algorithm>
#include <cmath>

namespace engram {

void UseLiteDense(const float* x, size_t rows, size_t in, const float* kernel, const float* bias,
                  size_t out, float* y) {
  if (rows == 0) return;
  cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, static_cast<int>(rows),
              static_cast<int>(out), static_cast<int>(in), 1.0f, x, static_cast<int>(in), kernel,
              static_cast<int>(out), 0.0f, y, static_cast<int>(out));
  for (size_t r = 0; r < rows; ++r) {
    float* row = y + r * out;
    for (size_t c = 0; c < out; ++c) row[c] += bias[c];
  }
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

void UseLiteRelu(float* x, size_t count) {
  for (size_t i = 0; i < count; ++i) x[i] = std::max(x[i], 0.0f);
}

void UseLiteAttention(const float* qkv, const std::vector<size_t>& offsets, size_t dim,
                      size_t heads, float query_scale, float* out, std::vector<float>* scratch) {
  const size_t head_dim = dim / heads;
  const int ld_qkv = static_cast<int>(3 * dim);
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    const size_t first = offsets[s];
    const size_t length = offsets[s + 1] - first;
    if (length == 0) continue;
    scratch->resize(length * head_dim + length * length);
    float* query = scratch->data();
    float* weights = query + length * head_dim;
    const int n = static_cast<int>(length);
    for (size_t h = 0; h < heads; ++h) {
      const float* q = qkv + first * 3 * dim + h * head_dim;
      const float* k = q + dim;
      const float* v = q + 2 * dim;
      for (size_t t = 0; t < length; ++t) {
        for (size_t c = 0; c < head_dim; ++c) {
          query[t * head_dim + c] = q[t * 3 * dim + c] * query_scale;
        }
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasTrans, n, n, static_cast<int>(head_dim), 1.0f,
                  query, static_cast<int>(head_dim), k, ld_qkv, 0.0f, weights, n);
      for (size_t t = 0; t < length; ++t) {
        float* row = weights + t * length;
        const float peak = *std::max_element(row, row + length);
        float total = 0.0f;
        for (size_t j = 0; j < length; ++j) {
          row[j] = std::exp(row[j] - peak);
          total += row[j];
        }
        for (size_t j = 0; j < length; ++j) row[j] /= total;
      }
      cblas_sgemm(CblasRowMajor, CblasNoTrans, CblasNoTrans, n, static_cast<int>(head_dim), n, 1.0f,
                  weights, n, v, ld_qkv, 0.0f, out + first * dim + h * head_dim,
                  static_cast<int>(dim));
    }
  }
}

}  // namespace engram
