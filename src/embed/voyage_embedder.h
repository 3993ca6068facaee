// VoyageEmbedder: provider "voyage", POST {base}/v1/embeddings with a Bearer
// key (VOYAGE_API_KEY), at most 1000 texts a call, "input_type" "query" or
// "document" after the purpose.
//
// Models: voyage-3.5, voyage-3.5-lite, voyage-3-large and voyage-code-3
// give 1024 dimensions or, asked, 256, 512 or 2048 ("output_dimension" is
// then sent); voyage-3, voyage-multilingual-2, voyage-finance-2 and
// voyage-law-2 give 1024, voyage-3-lite 512 and voyage-code-2 1536, fixed.
// Another model must be given its dimension.
//
// Thread-safety: as RemoteEmbedder.
#ifndef ENGRAM_SRC_EMBED_VOYAGE_EMBEDDER_H_
#define ENGRAM_SRC_EMBED_VOYAGE_EMBEDDER_H_

#include <memory>
#include <optional>
#include <string>

#include "src/embed/remote_embedder.h"

namespace engram {

inline constexpr char kVoyageEmbedDefaultModel[] = "voyage-3.5";

class VoyageEmbedder final : public RemoteEmbedder {
 public:
  // `model` empty: kVoyageEmbedDefaultModel. `client` null: DefaultHttpClient of
  // options.remote. InvalidArgument for a dimension the model cannot give or
  // a missing key (unless base_url is set); no call is made.
  static Result<std::unique_ptr<VoyageEmbedder>> Create(
      std::string model, const EmbedderOptions& options,
      std::shared_ptr<const HttpClient> client = nullptr);

 protected:
  Result<std::vector<nlohmann::json>> EmbedBatch(std::span<const std::string> texts,
                                                 EmbedPurpose purpose) const override;

 private:
  VoyageEmbedder(EmbeddingSpace space, std::optional<size_t> send_dimension,
                 std::shared_ptr<const HttpClient> client, const RemoteOptions& options);

  std::optional<size_t> send_dimension_;  // "output_dimension", when not the native one
  std::shared_ptr<const HttpClient> client_;
  std::string url_;
  std::string api_key_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_VOYAGE_EMBEDDER_H_
