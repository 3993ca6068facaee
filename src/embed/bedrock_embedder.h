// BedrockEmbedder: provider "bedrock", InvokeModel on the Bedrock runtime
// (BedrockClient: SigV4-signed POST {base}/model/{id}/invoke).
//
// Models and their wire formats:
//   amazon.titan-embed-text-v2:0 (default)  {"inputText","dimensions",
//       "normalize":true}: one text a call, 8 calls in parallel; 256, 512
//       or 1024 dimensions (default 1024).
//   amazon.titan-embed-text-v1              {"inputText"}: one text a call,
//       8 in parallel; 1536 dimensions only.
//   cohere.embed-english-v3, cohere.embed-multilingual-v3
//       {"texts","input_type","truncate":"END"}: at most 96 texts a call,
//       input_type search_query or search_document; 1024 dimensions only.
// Another model is refused: its wire format is not known.
//
// Thread-safety: as RemoteEmbedder.
#ifndef ENGRAM_SRC_EMBED_BEDROCK_EMBEDDER_H_
#define ENGRAM_SRC_EMBED_BEDROCK_EMBEDDER_H_

#include <memory>
#include <string>

#include "src/embed/remote_embedder.h"
#include "src/http/bedrock_client.h"

namespace engram {

inline constexpr char kBedrockEmbedDefaultModel[] = "amazon.titan-embed-text-v2:0";

class BedrockEmbedder final : public RemoteEmbedder {
 public:
  // `model` empty: kBedrockEmbedDefaultModel. `client` null: DefaultHttpClient of
  // options.remote. InvalidArgument for an unknown model, a dimension the
  // model cannot give, or missing AWS credentials; no call is made.
  static Result<std::unique_ptr<BedrockEmbedder>> Create(
      std::string model, const EmbedderOptions& options,
      std::shared_ptr<const HttpClient> client = nullptr);

 protected:
  Result<std::vector<nlohmann::json>> EmbedBatch(std::span<const std::string> texts,
                                                 EmbedPurpose purpose) const override;

 private:
  enum class Format { kTitanV2, kTitanV1, kCohere };

  BedrockEmbedder(EmbeddingSpace space, Format format, std::unique_ptr<BedrockClient> bedrock,
                  const RemoteOptions& options);

  Format format_;
  std::unique_ptr<BedrockClient> bedrock_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_BEDROCK_EMBEDDER_H_
