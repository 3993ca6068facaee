// LocalEmbedder: the embedded USE-Lite model as an Embedder (provider
// "local", 512-d), in-process and offline, in one of the three readings of
// src/common/local_models.h (model "use-lite-en" by default).
//
// One preparation before the model: text written without any lower-case
// letter but with upper-case ones ("DEPLOY ON THURSDAYS") is lower-cased
// first. The model's tokenizer is case-sensitive and such text embeds to
// near noise; lower-cased, it embeds like the sentence it is.
//
// Thread-safety: Embed is const and may run on several threads at once.
#ifndef ENGRAM_SRC_EMBED_LOCAL_EMBEDDER_H_
#define ENGRAM_SRC_EMBED_LOCAL_EMBEDDER_H_

#include <memory>
#include <string>

#include "engram/embedder.h"
#include "src/common/local_models.h"
#include "src/embed/use_lite_encoder.h"

namespace engram {

class LocalEmbedder final : public Embedder {
 public:
  // Loads `model_path` (a file written by use_lite_convert) into an encoder
  // with `options`.
  static Result<std::unique_ptr<LocalEmbedder>> Load(const std::string& model_path,
                                                     const UseLiteEncoderOptions& options = {});

  // The space a model loaded with `options` embeds in, known before it
  // loads.
  static EmbeddingSpace SpaceOf(const UseLiteEncoderOptions& options);

  const EmbeddingSpace& Space() const override { return space_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose purpose) const override;

  // `text` as the model receives it (see above).
  static std::string Prepare(const std::string& text);

  // The model behind it.
  const UseLiteEncoder& Encoder() const { return *encoder_; }

 private:
  LocalEmbedder(std::unique_ptr<UseLiteEncoder> encoder, EmbeddingSpace space);

  std::unique_ptr<UseLiteEncoder> encoder_;
  EmbeddingSpace space_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_LOCAL_EMBEDDER_H_
