// OpenAiEmbedder: provider "openai", POST {base}/v1/embeddings with a
// Bearer key (OPENAI_API_KEY), at most 2048 texts a call. Also talks to
// OpenAI-compatible servers (base_url set: the key may then be empty).
//
// Models: text-embedding-3-small (1536) and text-embedding-3-large (3072)
// may be truncated: "dimensions" is sent when a smaller one is asked;
// text-embedding-ada-002 gives 1536 only. Any other model (a compatible
// server's) must be given its dimension, which is checked against every
// answer and never sent.
//
// Thread-safety: as RemoteEmbedder.
#ifndef ENGRAM_SRC_EMBED_OPENAI_EMBEDDER_H_
#define ENGRAM_SRC_EMBED_OPENAI_EMBEDDER_H_

#include <memory>
#include <optional>
#include <string>

#include "src/embed/remote_embedder.h"

namespace engram {

inline constexpr char kOpenAiEmbedDefaultModel[] = "text-embedding-3-small";

class OpenAiEmbedder final : public RemoteEmbedder {
 public:
  // `model` empty: kOpenAiEmbedDefaultModel. `client` null: DefaultHttpClient of
  // options.remote. InvalidArgument for a dimension the model cannot give or
  // a missing key; no call is made.
  static Result<std::unique_ptr<OpenAiEmbedder>> Create(
      std::string model, const EmbedderOptions& options,
      std::shared_ptr<const HttpClient> client = nullptr);

 protected:
  Result<std::vector<nlohmann::json>> EmbedBatch(std::span<const std::string> texts,
                                                 EmbedPurpose purpose) const override;

 private:
  OpenAiEmbedder(EmbeddingSpace space, std::optional<size_t> send_dimensions,
                 std::shared_ptr<const HttpClient> client, const RemoteOptions& options);

  std::optional<size_t> send_dimensions_;  // "dimensions" of the body, when truncating
  std::shared_ptr<const HttpClient> client_;
  std::string url_;
  std::string api_key_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_OPENAI_EMBEDDER_H_
