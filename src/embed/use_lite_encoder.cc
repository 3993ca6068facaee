#include "src/embed/use_lite_encoder.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <system_error>
#include <thread>
#include <utility>

#include "src/common/local_models.h"
#include "src/embed/blas_api.h"

namespace engram {
namespace {

constexpr size_t kEmbedDim = 256;
constexpr size_t kModelDim = UseLiteEncoder::kDimension;
constexpr size_t kFfnDim = 1536;
constexpr size_t kTimescales = kEmbedDim / 2;
constexpr size_t kMaxTokens = UseLiteTokenizer::kMaxModelTokens;

// Writes the mean over each sentence's rows of x[rows, width] into
// mean[sentences, width], summing in row order.
void MeanOverSentences(const float* x, const std::vector<size_t>& offsets, size_t width,
                       float* mean) {
  for (size_t s = 0; s + 1 < offsets.size(); ++s) {
    float* out = mean + s * width;
    std::fill_n(out, width, 0.0f);
    for (size_t r = offsets[s]; r < offsets[s + 1]; ++r) {
      const float* row = x + r * width;
      for (size_t c = 0; c < width; ++c) out[c] += row[c];
    }
    const float count = static_cast<float>(std::max<size_t>(offsets[s + 1] - offsets[s], 1));
    for (size_t c = 0; c < width; ++c) out[c] /= count;
  }
}

// The threads OpenBLAS would start with: OPENBLAS_NUM_THREADS when it is
// a positive number, else one per CPU.
size_t BlasThreadsFromEnvironment() {
  const size_t cpus = std::max<size_t>(std::thread::hardware_concurrency(), 1);
  const char* set = std::getenv("OPENBLAS_NUM_THREADS");
  if (set == nullptr) return cpus;
  size_t threads = 0;
  const char* end = set + std::strlen(set);
  const auto [last, error] = std::from_chars(set, end, threads);
  return error == std::errc() && last == end && threads > 0 ? threads : cpus;
}

}  // namespace

struct UseLiteEncoder::Workspace {
  std::vector<float> x;            // layer input and output
  std::vector<float> normed;       // LayerNorm output, also the projected residual
  std::vector<float> qkv;          // queries, keys, values
  std::vector<float> attention;    // heads side by side
  std::vector<float> sum;          // x after attention (the FFN's residual)
  std::vector<float> hidden;       // FFN inner layer
  std::vector<float> scratch;      // per-head attention buffers
  std::vector<float> mean_sum;     // [sentences, 512]: mean of sum
  std::vector<float> mean_hidden;  // [sentences, 1536]: mean of hidden
  std::vector<float> pooled;       // [sentences, 512]
  std::vector<float> dense;        // [sentences, 512]

  void Reserve(size_t rows, size_t sentences) {
    x.resize(rows * kModelDim);
    normed.resize(rows * kModelDim);
    qkv.resize(rows * 3 * kModelDim);
    attention.resize(rows * kModelDim);
    sum.resize(rows * kModelDim);
    hidden.resize(rows * kFfnDim);
    mean_sum.resize(sentences * kModelDim);
    mean_hidden.resize(sentences * kFfnDim);
    pooled.resize(sentences * kModelDim);
    dense.resize(sentences * kModelDim);
  }
};

Result<std::unique_ptr<UseLiteEncoder>> UseLiteEncoder::Load(const std::string& model_path,
                                                             const UseLiteEncoderOptions& options) {
  UseLiteModelReadOptions read_options;
  read_options.map = options.map_model_file;
  ENGRAM_ASSIGN_OR_RETURN(UseLiteModelData model, ReadUseLiteModelFile(model_path, read_options));
  if (model.max_tokens != kMaxTokens || model.output_dim != kModelDim) {
    return Corruption("embed: model file " + model_path + ": reads " +
                      std::to_string(model.max_tokens) + " tokens into " +
                      std::to_string(model.output_dim) + "-d vectors, expected 128 and 512");
  }
  std::unique_ptr<UseLiteEncoder> encoder(new UseLiteEncoder());
  encoder->options_ = options;
  encoder->options_.max_batch_tokens = std::max(options.max_batch_tokens, kMaxTokens);
  if (encoder->options_.threads == 0) {
    encoder->options_.threads = std::clamp<size_t>(
        BlasThreadsFromEnvironment(), 1, std::max<size_t>(std::thread::hardware_concurrency(), 1));
  }
  ENGRAM_ASSIGN_OR_RETURN(encoder->tokenizer_,
                          UseLiteTokenizer::FromTables(model.tokenizer, model.storage));
  model.pieces.clear();
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
  // The dense layer `name`: a view of `name`.panels [out / 16, in, 16],
  // `name`.kernel [in, out] and `name`.bias [out]; empty (and `status`
  // set) when one is missing or misshapen.
  auto dense = [&](const std::string& name, uint32_t in, uint32_t out) {
    const float* panels = get(name + std::string(kUseLitePanelsSuffix),
                              {static_cast<uint32_t>(UseLitePanelCount(out)), in,
                               static_cast<uint32_t>(kUseLitePanelWidth)});
    const float* kernel = get(name + std::string(kUseLiteKernelSuffix), {in, out});
    const float* bias = get(name + ".bias", {out});
    if (panels == nullptr || kernel == nullptr || bias == nullptr) return UseLitePackedDense();
    return UseLitePackedDense::View(panels, kernel, bias, in, out);
  };
  const auto embedding = model_.tensors.find("embedding");
  if (embedding == model_.tensors.end() || embedding->second.shape.size() != 2) {
    return Corruption("tensor embedding missing or not 2-d");
  }
  embedding_rows_ = embedding->second.shape[0];
  embedding_ = get("embedding", {static_cast<uint32_t>(embedding_rows_), kEmbedDim});
  const float* inv_timescales = get("timing.inv_timescales", {kTimescales});
  pool_ = dense("pool", kModelDim, kModelDim);
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
    layer.qkv = dense(p + "qkv", in, 3 * in);
    const float* query_scale = get(p + "query_scale", {});
    layer.output = dense(p + "output", in, kModelDim);
    if (i == 0) layer.residual = dense(p + "residual", in, kModelDim);
    layer.norm2_scale = get(p + "norm2.scale", {kModelDim});
    layer.norm2_bias = get(p + "norm2.bias", {kModelDim});
    layer.ffn1 = dense(p + "ffn1", kModelDim, kFfnDim);
    layer.ffn2 = dense(p + "ffn2", kFfnDim, kModelDim);
    if (query_scale != nullptr) layer.query_scale = *query_scale;
  }
  if (!status.ok()) return status;
  norm_epsilon_ = *norm_epsilon;
  l2_epsilon_ = *l2_epsilon;

  // The timing signal of every position, computed as the graph does.
  timing_.resize(kMaxTokens * kEmbedDim);
  for (size_t p = 0; p < kMaxTokens; ++p) {
    float* row = timing_.data() + p * kEmbedDim;
    for (size_t i = 0; i < kTimescales; ++i) {
      const float angle = static_cast<float>(p) * inv_timescales[i];
      row[i] = static_cast<float>(std::sin(static_cast<double>(angle)));
      row[kTimescales + i] = static_cast<float>(std::cos(static_cast<double>(angle)));
    }
  }
  return Status::OK();
}

UseLiteDenseCounts UseLiteEncoder::DenseCounts() const {
  UseLiteDenseCounts counts;
  counts.sgemm = sgemm_products_.load(std::memory_order_relaxed);
  counts.packed = packed_products_.load(std::memory_order_relaxed);
  return counts;
}

void UseLiteEncoder::Dense(const float* x, size_t rows, const UseLitePackedDense& dense, float* y,
                           const UseLiteDenseEpilogue& epilogue) const {
  // OpenBLAS is loaded by the first product that needs it; where it cannot
  // be, the packed kernel computes the same product.
  const BlasApi* blas = nullptr;
  if (rows >= options_.sgemm_min_rows) {
    const Result<const BlasApi*> loaded = Blas();
    if (loaded.ok()) blas = *loaded;
  }
  if (blas != nullptr) {
    sgemm_products_.fetch_add(1, std::memory_order_relaxed);
    UseLiteDenseSgemm(*blas, x, rows, dense, y, epilogue);
  } else {
    packed_products_.fetch_add(1, std::memory_order_relaxed);
    UseLiteDense(x, rows, dense, y, epilogue);
  }
}

std::vector<std::vector<int32_t>> UseLiteEncoder::Windows(std::vector<int32_t> ids,
                                                          UseLiteLongText long_text) {
  if (ids.size() <= kMaxTokens) return {std::move(ids)};
  if (long_text == UseLiteLongText::kTruncate) {
    ids.resize(kMaxTokens);
    return {std::move(ids)};
  }
  if (long_text == UseLiteLongText::kBestWindow) {
    ids.resize(std::min(ids.size(), kMaxTokens * kUseLiteMaxWindows));
  }
  // As few windows as fit, of sizes that differ by at most one, so that no
  // window is a short tail.
  const size_t count = (ids.size() + kMaxTokens - 1) / kMaxTokens;
  std::vector<std::vector<int32_t>> windows;
  windows.reserve(count);
  size_t begin = 0;
  for (size_t w = 0; w < count; ++w) {
    const size_t end = ids.size() * (w + 1) / count;
    windows.emplace_back(ids.begin() + static_cast<std::ptrdiff_t>(begin),
                         ids.begin() + static_cast<std::ptrdiff_t>(end));
    begin = end;
  }
  return windows;
}

Result<std::vector<std::vector<float>>> UseLiteEncoder::Embed(
    const std::vector<std::string>& texts) const {
  return Embed(texts, options_.long_text);
}

Result<std::vector<std::vector<float>>> UseLiteEncoder::Embed(const std::vector<std::string>& texts,
                                                              UseLiteLongText long_text) const {
  // Each text becomes one or more windows, embedded as sentences of their
  // own: text i owns windows [first_window[i], first_window[i + 1]).
  std::vector<std::vector<int32_t>> ids;
  std::vector<size_t> first_window = {0};
  first_window.reserve(texts.size() + 1);
  for (size_t i = 0; i < texts.size(); ++i) {
    if (texts[i].empty()) {
      return InvalidArgument("embed: use-lite: text " + std::to_string(i) + " is empty");
    }
    std::vector<int32_t> text_ids = tokenizer_->Encode(texts[i]);
    if (text_ids.empty()) {
      return InvalidArgument("embed: use-lite: text " + std::to_string(i) + " has no tokens");
    }
    for (std::vector<int32_t>& window : Windows(std::move(text_ids), long_text)) {
      ids.push_back(std::move(window));
    }
    first_window.push_back(ids.size());
  }
  if (ids.size() == texts.size()) return EmbedWindows(ids);
  std::vector<std::vector<float>> window_vectors = EmbedWindows(ids);
  std::vector<std::vector<float>> vectors(texts.size());
  if (long_text == UseLiteLongText::kBestWindow) {
    // Each window's vector, one after another.
    for (size_t i = 0; i < texts.size(); ++i) {
      vectors[i].reserve((first_window[i + 1] - first_window[i]) * kModelDim);
      for (size_t w = first_window[i]; w < first_window[i + 1]; ++w) {
        vectors[i].insert(vectors[i].end(), window_vectors[w].begin(), window_vectors[w].end());
      }
    }
    return vectors;
  }
  // A text read in several windows: the mean of their vectors, each
  // weighted by its tokens, L2-normalised as the model's own output is.
  for (size_t i = 0; i < texts.size(); ++i) {
    const size_t begin = first_window[i];
    const size_t end = first_window[i + 1];
    if (end - begin == 1) {
      vectors[i] = std::move(window_vectors[begin]);
      continue;
    }
    std::vector<double> sum(kModelDim, 0.0);
    for (size_t w = begin; w < end; ++w) {
      const double weight = static_cast<double>(ids[w].size());
      for (size_t c = 0; c < kModelDim; ++c) sum[c] += weight * window_vectors[w][c];
    }
    double norm2 = 0.0;
    for (const double x : sum) norm2 += x * x;
    const double scale = 1.0 / std::sqrt(std::max(norm2, static_cast<double>(l2_epsilon_)));
    vectors[i].resize(kModelDim);
    for (size_t c = 0; c < kModelDim; ++c) vectors[i][c] = static_cast<float>(sum[c] * scale);
  }
  return vectors;
}

std::vector<std::vector<float>> UseLiteEncoder::EmbedWindows(
    const std::vector<std::vector<int32_t>>& ids) const {
  size_t total_tokens = 0;
  for (const std::vector<int32_t>& window : ids) total_tokens += window.size();
  std::vector<std::vector<float>> vectors(ids.size());
  const size_t threads = std::min(
      {options_.threads, ids.size(),
       std::max<size_t>(total_tokens / std::max<size_t>(options_.min_tokens_per_thread, 1), 1)});
  if (threads <= 1) {
    EmbedRange(ids, 0, ids.size(), &vectors);
    return vectors;
  }
  // Contiguous shares of about total_tokens / threads tokens each; the
  // calling thread takes the first.
  std::vector<size_t> bounds = {0};
  size_t tokens = 0;
  for (size_t i = 0; i < ids.size() && bounds.size() < threads; ++i) {
    tokens += ids[i].size();
    if (tokens * threads >= bounds.size() * total_tokens) bounds.push_back(i + 1);
  }
  bounds.push_back(ids.size());
  std::vector<std::thread> workers;
  for (size_t part = 1; part + 1 < bounds.size(); ++part) {
    if (bounds[part] == bounds[part + 1]) continue;
    try {
      workers.emplace_back(
          [&, part] { EmbedRange(ids, bounds[part], bounds[part + 1], &vectors); });
    } catch (const std::system_error&) {
      // No thread to be had: this share runs here instead.
      EmbedRange(ids, bounds[part], bounds[part + 1], &vectors);
    }
  }
  EmbedRange(ids, bounds[0], bounds[1], &vectors);
  for (std::thread& worker : workers) worker.join();
  return vectors;
}

void UseLiteEncoder::EmbedRange(const std::vector<std::vector<int32_t>>& ids, size_t begin,
                                size_t end, std::vector<std::vector<float>>* out) const {
  Workspace work;
  size_t first = begin;
  size_t batch_tokens = 0;
  for (size_t i = begin; i < end; ++i) {
    if (i > first && batch_tokens + ids[i].size() > options_.max_batch_tokens) {
      EmbedBatch(ids, first, i, &work, out);
      first = i;
      batch_tokens = 0;
    }
    batch_tokens += ids[i].size();
  }
  if (first < end) EmbedBatch(ids, first, end, &work, out);
}

void UseLiteEncoder::EmbedBatch(const std::vector<std::vector<int32_t>>& ids, size_t begin,
                                size_t end, Workspace* work,
                                std::vector<std::vector<float>>* out) const {
  const size_t sentences = end - begin;
  std::vector<size_t> offsets = {0};
  for (size_t i = begin; i < end; ++i) offsets.push_back(offsets.back() + ids[i].size());
  const size_t rows = offsets.back();
  work->Reserve(rows, sentences);

  // Input: embedding + (embedding + timing), as the graph adds them.
  float* x = work->x.data();
  for (size_t s = 0; s < sentences; ++s) {
    const std::vector<int32_t>& sentence = ids[begin + s];
    for (size_t p = 0; p < sentence.size(); ++p) {
      const size_t id = static_cast<size_t>(sentence[p]);
      const float* e = embedding_ + id * kEmbedDim;  // id < embedding_rows_, see Load
      const float* timing = timing_.data() + p * kEmbedDim;
      float* row = x + (offsets[s] + p) * kEmbedDim;
      for (size_t i = 0; i < kEmbedDim; ++i) row[i] = e[i] + (e[i] + timing[i]);
    }
  }
  RunAttention(layers_[0], offsets, work);
  RunFeedForward(layers_[0], rows, work);
  RunAttention(layers_[1], offsets, work);
  RunFeedForwardMean(layers_[1], offsets, work);

  // tanh(mean · W + b), then L2 normalisation.
  Dense(work->pooled.data(), sentences, pool_, work->dense.data());
  for (size_t s = 0; s < sentences; ++s) {
    const float* dense = work->dense.data() + s * kModelDim;
    std::vector<float> vector(kModelDim);
    float square_sum = 0.0f;
    for (size_t c = 0; c < kModelDim; ++c) {
      vector[c] = std::tanh(dense[c]);
      square_sum += vector[c] * vector[c];
    }
    const float inverse = 1.0f / std::sqrt(std::max(square_sum, l2_epsilon_));
    for (float& value : vector) value *= inverse;
    (*out)[begin + s] = std::move(vector);
  }
}

void UseLiteEncoder::RunAttention(const Layer& layer, const std::vector<size_t>& offsets,
                                  Workspace* work) const {
  const size_t rows = offsets.back();
  float* x = work->x.data();
  float* normed = work->normed.data();

  // sum = Attention(LN(x)) · W_out + b + residual(x).
  UseLiteLayerNorm(x, rows, layer.in, layer.norm1_scale, layer.norm1_bias, norm_epsilon_, normed);
  Dense(normed, rows, layer.qkv, work->qkv.data());
  UseLiteAttention(work->qkv.data(), offsets, layer.in, layer.heads, layer.query_scale,
                   work->attention.data(), &work->scratch);
  UseLiteDenseEpilogue epilogue;
  epilogue.residual = x;
  if (layer.residual.Out() != 0) {
    Dense(x, rows, layer.residual, normed);
    epilogue.residual = normed;
  }
  Dense(work->attention.data(), rows, layer.output, work->sum.data(), epilogue);
}

void UseLiteEncoder::RunFeedForwardHidden(const Layer& layer, size_t rows, Workspace* work) const {
  float* normed = work->normed.data();
  UseLiteLayerNorm(work->sum.data(), rows, kModelDim, layer.norm2_scale, layer.norm2_bias,
                   norm_epsilon_, normed);
  UseLiteDenseEpilogue relu;
  relu.relu = true;
  Dense(normed, rows, layer.ffn1, work->hidden.data(), relu);
}

void UseLiteEncoder::RunFeedForward(const Layer& layer, size_t rows, Workspace* work) const {
  // x = ReLU(LN(sum) · W1 + b1) · W2 + b2 + sum.
  RunFeedForwardHidden(layer, rows, work);
  UseLiteDenseEpilogue residual;
  residual.residual = work->sum.data();
  Dense(work->hidden.data(), rows, layer.ffn2, work->x.data(), residual);
}

void UseLiteEncoder::RunFeedForwardMean(const Layer& layer, const std::vector<size_t>& offsets,
                                        Workspace* work) const {
  // mean(ReLU(LN(sum) · W1 + b1) · W2 + b2 + sum)
  //   = mean(ReLU(LN(sum) · W1 + b1)) · W2 + b2 + mean(sum).
  const size_t rows = offsets.back();
  const size_t sentences = offsets.size() - 1;
  RunFeedForwardHidden(layer, rows, work);
  MeanOverSentences(work->hidden.data(), offsets, kFfnDim, work->mean_hidden.data());
  MeanOverSentences(work->sum.data(), offsets, kModelDim, work->mean_sum.data());
  UseLiteDenseEpilogue residual;
  residual.residual = work->mean_sum.data();
  Dense(work->mean_hidden.data(), sentences, layer.ffn2, work->pooled.data(), residual);
}

}  // namespace engram
