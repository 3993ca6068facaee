#include "src/embed/use_lite_encoder.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "src/embed/use_lite_kernels.h"

namespace engram {
namespace {

constexpr size_t kEmbedDim = 256;
constexpr size_t kModelDim = UseLiteEncoder::kDimension;
constexpr size_t kFfnDim = 1536;
constexpr size_t kTimescales = kEmbedDim / 2;
constexpr size_t kMaxTokens = UseLiteTokenizer::kMaxModelTokens;

}  // namespace

struct UseLiteEncoder::Workspace {
  std::vector<float> x;          // layer input and output
  std::vector<float> normed;     // LayerNorm output, also the projected residual
  std::vector<float> qkv;        // queries, keys, values
  std::vector<float> attention;  // heads side by side
  std::vector<float> sum;        // x after attention (the FFN's residual)
  std::vector<float> hidden;     // FFN inner layer
  std::vector<float> scratch;    // per-head attention buffers
  std::vector<float> pooled;     // [sentences, 512]
  std::vector<float> dense;      // [sentences, 512]

  void Reserve(size_t rows) {
    x.resize(rows * kModelDim);
    normed.resize(rows * kModelDim);
    qkv.resize(rows * 3 * kModelDim);
    attention.resize(rows * kModelDim);
    sum.resize(rows * kModelDim);
    hidden.resize(rows * kFfnDim);
  }
};

Result<std::unique_ptr<UseLiteEncoder>> UseLiteEncoder::Load(const std::string& model_path,
                                                             const UseLiteEncoderOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(UseLiteModelData model, ReadUseLiteModelFile(model_path));
  if (model.max_tokens != kMaxTokens || model.output_dim != kModelDim) {
    return Corruption("embed: model file " + model_path + ": reads " +
                      std::to_string(model.max_tokens) + " tokens into " +
                      std::to_string(model.output_dim) + "-d vectors, expected 128 and 512");
  }
  std::unique_ptr<UseLiteEncoder> encoder(new UseLiteEncoder());
  encoder->options_ = options;
  encoder->options_.max_batch_tokens = std::max(options.max_batch_tokens, kMaxTokens);
  ENGRAM_ASSIGN_OR_RETURN(encoder->tokenizer_, UseLiteTokenizer::FromPieces(model.pieces));
  encoder->model_ = std::move(model);
  ENGRAM_RETURN_IF_ERROR(encoder->BindTensors().WithContext("embed: model file " + model_path));
  if (encoder->tokenizer_->VocabSize() > encoder->embedding_rows_) {
    return Corruption("embed: model file " + model_path + ": vocabulary larger than the embedding");
  }
  return encoder;
}

Status UseLiteEncoder::BindTensors() {
  Status status;
  // The tensor `name`, which must have `shape`; null (and `status` set)
  // when it does not.
  auto get = [&](const std::string& name, std::vector<uint32_t> shape) -> const float* {
    const auto it = model_.tensors.find(name);
    if (it == model_.tensors.end()) {
      if (status.ok()) status = Corruption("tensor " + name + " missing");
      return nullptr;
    }
    if (it->second.shape != shape) {
      if (status.ok()) status = Corruption("tensor " + name + " has the wrong shape");
      return nullptr;
    }
    return it->second.values.data();
  };
  const auto embedding = model_.tensors.find("embedding");
  if (embedding == model_.tensors.end() || embedding->second.shape.size() != 2) {
    return Corruption("tensor embedding missing or not 2-d");
  }
  embedding_rows_ = embedding->second.shape[0];
  embedding_ = get("embedding", {static_cast<uint32_t>(embedding_rows_), kEmbedDim});
  inv_timescales_ = get("timing.inv_timescales", {kTimescales});
  pool_kernel_ = get("pool.kernel", {kModelDim, kModelDim});
  pool_bias_ = get("pool.bias", {kModelDim});
  const float* norm_epsilon = get("norm_epsilon", {});
  const float* l2_epsilon = get("l2_epsilon", {});
  for (size_t i = 0; i < 2; ++i) {
    Layer& layer = layers_[i];
    const std::string p = "layer" + std::to_string(i) + ".";
    const uint32_t in = i == 0 ? kEmbedDim : kModelDim;
    layer.in = in;
    layer.heads = 4;
    layer.norm1_scale = get(p + "norm1.scale", {in});
    layer.norm1_bias = get(p + "norm1.bias", {in});
    layer.qkv_kernel = get(p + "qkv.kernel", {in, 3 * in});
    layer.qkv_bias = get(p + "qkv.bias", {3 * in});
    const float* query_scale = get(p + "query_scale", {});
    layer.output_kernel = get(p + "output.kernel", {in, kModelDim});
    layer.output_bias = get(p + "output.bias", {kModelDim});
    if (i == 0) {
      layer.residual_kernel = get(p + "residual.kernel", {in, kModelDim});
      layer.residual_bias = get(p + "residual.bias", {kModelDim});
    }
    layer.norm2_scale = get(p + "norm2.scale", {kModelDim});
    layer.norm2_bias = get(p + "norm2.bias", {kModelDim});
    layer.ffn1_kernel = get(p + "ffn1.kernel", {kModelDim, kFfnDim});
    layer.ffn1_bias = get(p + "ffn1.bias", {kFfnDim});
    layer.ffn2_kernel = get(p + "ffn2.kernel", {kFfnDim, kModelDim});
    layer.ffn2_bias = get(p + "ffn2.bias", {kModelDim});
    if (query_scale != nullptr) layer.query_scale = *query_scale;
  }
  if (!status.ok()) return status;
  norm_epsilon_ = *norm_epsilon;
  l2_epsilon_ = *l2_epsilon;
  return Status::OK();
}

Result<std::vector<std::vector<float>>> UseLiteEncoder::Embed(
    const std::vector<std::string>& texts) const {
  std::vector<std::vector<int32_t>> ids(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].empty()) {
      return InvalidArgument("embed: use-lite: text " + std::to_string(i) + " is empty");
    }
    ids[i] = tokenizer_->Encode(texts[i], kMaxTokens);
    if (ids[i].empty()) {
      return InvalidArgument("embed: use-lite: text " + std::to_string(i) + " has no tokens");
    }
  }
  std::vector<std::vector<float>> vectors;
  vectors.reserve(texts.size());
  Workspace work;
  std::vector<const std::vector<int32_t>*> batch;
  size_t batch_tokens = 0;
  for (size_t i = 0; i <= ids.size(); ++i) {
    if (i == ids.size() || batch_tokens + ids[i].size() > options_.max_batch_tokens) {
      if (!batch.empty()) EmbedBatch(batch, &work, &vectors);
      batch.clear();
      batch_tokens = 0;
    }
    if (i < ids.size()) {
      batch.push_back(&ids[i]);
      batch_tokens += ids[i].size();
    }
  }
  return vectors;
}

void UseLiteEncoder::EmbedBatch(const std::vector<const std::vector<int32_t>*>& ids,
                                Workspace* work, std::vector<std::vector<float>>* out) const {
  std::vector<size_t> offsets = {0};
  for (const std::vector<int32_t>* sentence : ids)
    offsets.push_back(offsets.back() + sentence->size());
  const size_t rows = offsets.back();
  work->Reserve(rows);

  // Input: embedding + (embedding + timing), as the graph adds them.
  float* x = work->x.data();
  for (size_t s = 0; s < ids.size(); ++s) {
    for (size_t p = 0; p < ids[s]->size(); ++p) {
      const size_t id = static_cast<size_t>((*ids[s])[p]);
      const float* e = embedding_ + id * kEmbedDim;  // id < embedding_rows_, see Load
      float* row = x + (offsets[s] + p) * kEmbedDim;
      for (size_t i = 0; i < kTimescales; ++i) {
        const float angle = static_cast<float>(p) * inv_timescales_[i];
        const float timing_sin = static_cast<float>(std::sin(static_cast<double>(angle)));
        const float timing_cos = static_cast<float>(std::cos(static_cast<double>(angle)));
        row[i] = e[i] + (e[i] + timing_sin);
        row[kTimescales + i] = e[kTimescales + i] + (e[kTimescales + i] + timing_cos);
      }
    }
  }
  for (const Layer& layer : layers_) RunLayer(layer, offsets, work);

  // Masked mean, then tanh(mean · W + b), then L2 normalisation.
  work->pooled.assign(ids.size() * kModelDim, 0.0f);
  work->dense.resize(ids.size() * kModelDim);
  for (size_t s = 0; s < ids.size(); ++s) {
    float* mean = work->pooled.data() + s * kModelDim;
    for (size_t r = offsets[s]; r < offsets[s + 1]; ++r) {
      const float* row = x + r * kModelDim;
      for (size_t c = 0; c < kModelDim; ++c) mean[c] += row[c];
    }
    const float count = static_cast<float>(std::max<size_t>(offsets[s + 1] - offsets[s], 1));
    for (size_t c = 0; c < kModelDim; ++c) mean[c] /= count;
  }
  UseLiteDense(work->pooled.data(), ids.size(), kModelDim, pool_kernel_, pool_bias_, kModelDim,
               work->dense.data());
  for (size_t s = 0; s < ids.size(); ++s) {
    const float* dense = work->dense.data() + s * kModelDim;
    std::vector<float> vector(kModelDim);
    float square_sum = 0.0f;
    for (size_t c = 0; c < kModelDim; ++c) {
      vector[c] = std::tanh(dense[c]);
      square_sum += vector[c] * vector[c];
    }
    const float inverse = 1.0f / std::sqrt(std::max(square_sum, l2_epsilon_));
    for (float& value : vector) value *= inverse;
    out->push_back(std::move(vector));
  }
}

void UseLiteEncoder::RunLayer(const Layer& layer, const std::vector<size_t>& offsets,
                              Workspace* work) const {
  const size_t rows = offsets.back();
  const size_t in = layer.in;
  float* x = work->x.data();
  float* normed = work->normed.data();
  float* sum = work->sum.data();

  // Attention block: sum = Attention(LN(x)) · W_out + b + residual(x).
  UseLiteLayerNorm(x, rows, in, layer.norm1_scale, layer.norm1_bias, norm_epsilon_, normed);
  UseLiteDense(normed, rows, in, layer.qkv_kernel, layer.qkv_bias, 3 * in, work->qkv.data());
  UseLiteAttention(work->qkv.data(), offsets, in, layer.heads, layer.query_scale,
                   work->attention.data(), &work->scratch);
  UseLiteDense(work->attention.data(), rows, in, layer.output_kernel, layer.output_bias, kModelDim,
               sum);
  const float* residual = x;
  if (layer.residual_kernel != nullptr) {
    UseLiteDense(x, rows, in, layer.residual_kernel, layer.residual_bias, kModelDim, normed);
    residual = normed;
  }
  for (size_t i = 0; i < rows * kModelDim; ++i) sum[i] += residual[i];

  // FFN block: x = ReLU(LN(sum) · W1 + b1) · W2 + b2 + sum.
  UseLiteLayerNorm(sum, rows, kModelDim, layer.norm2_scale, layer.norm2_bias, norm_epsilon_,
                   normed);
  UseLiteDense(normed, rows, kModelDim, layer.ffn1_kernel, layer.ffn1_bias, kFfnDim,
               work->hidden.data());
  UseLiteRelu(work->hidden.data(), rows * kFfnDim);
  UseLiteDense(work->hidden.data(), rows, kFfnDim, layer.ffn2_kernel, layer.ffn2_bias, kModelDim,
               x);
  for (size_t i = 0; i < rows * kModelDim; ++i) x[i] += sum[i];
}

}  // namespace engram
