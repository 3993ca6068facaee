// OllamaEmbedder: provider "ollama", POST {base}/api/embed to a local Ollama
// server (default http://localhost:11434), at most 64 texts a call.
//
// Known models and their dimensions: nomic-embed-text 768,
// mxbai-embed-large 1024, all-minilm 384, snowflake-arctic-embed 1024,
// bge-m3 1024 (a ":latest" tag names the same model). Any other model, or
// another tag, must be given its dimension, which is checked against every
// answer.
//
// Thread-safety: as RemoteEmbedder.
#ifndef ENGRAM_SRC_EMBED_OLLAMA_EMBEDDER_H_
#define ENGRAM_SRC_EMBED_OLLAMA_EMBEDDER_H_

#include <memory>
#include <string>

#include "src/embed/remote_embedder.h"

namespace engram {

inline constexpr char kOllamaEmbedDefaultModel[] = "nomic-embed-text";

class OllamaEmbedder final : public RemoteEmbedder {
 public:
  // `model` empty: kOllamaEmbedDefaultModel. `client` null: DefaultHttpClient of
  // options.remote. InvalidArgument for a dimension the model cannot give,
  // or none given for an unknown model; no call is made.
  static Result<std::unique_ptr<OllamaEmbedder>> Create(
      std::string model, const EmbedderOptions& options,
      std::shared_ptr<const HttpClient> client = nullptr);

 protected:
  Result<std::vector<nlohmann::json>> EmbedBatch(std::span<const std::string> texts,
                                                 EmbedPurpose purpose) const override;

 private:
  OllamaEmbedder(EmbeddingSpace space, std::shared_ptr<const HttpClient> client,
                 const RemoteOptions& options);

  std::shared_ptr<const HttpClient> client_;
  std::string url_;
  std::string api_key_;  // sent when set (a server behind an authenticating proxy)
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_OLLAMA_EMBEDDER_H_
