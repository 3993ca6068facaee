#include "src/embed/ollama_embedder.h"

#include <utility>

namespace engram {
namespace {

// Ollama takes any number of inputs; 64 a call keeps one call well inside
// the timeout on a server without a GPU.
constexpr size_t kMaxBatch = 64;

constexpr KnownModel kModels[] = {
    {"nomic-embed-text", {768, false, {}}}, {"mxbai-embed-large", {1024, false, {}}},
    {"all-minilm", {384, false, {}}},       {"snowflake-arctic-embed", {1024, false, {}}},
    {"bge-m3", {1024, false, {}}},
};

}  // namespace

Result<std::unique_ptr<OllamaEmbedder>> OllamaEmbedder::Create(
    std::string model, const EmbedderOptions& options, std::shared_ptr<const HttpClient> client) {
  constexpr std::string_view kWhat = "embed: ollama";
  if (model.empty()) model = kOllamaEmbedDefaultModel;
  constexpr std::string_view kLatest = ":latest";
  std::string_view name = model;
  if (name.ends_with(kLatest)) name.remove_suffix(kLatest.size());
  ENGRAM_ASSIGN_OR_RETURN(size_t dimension,
                          ChooseDimension(kWhat, name, kModels, options.dimensions));
  if (client == nullptr) client = DefaultHttpClient(options.remote);
  return std::unique_ptr<OllamaEmbedder>(new OllamaEmbedder({"ollama", std::move(model), dimension},
                                                            std::move(client), options.remote));
}

OllamaEmbedder::OllamaEmbedder(EmbeddingSpace space, std::shared_ptr<const HttpClient> client,
                               const RemoteOptions& options)
    : RemoteEmbedder(std::move(space), kMaxBatch, 1, {options.api_key}),
      client_(std::move(client)),
      url_(BaseUrlOr(options.base_url, "http://localhost:11434") + "/api/embed"),
      api_key_(options.api_key) {}

Result<std::vector<nlohmann::json>> OllamaEmbedder::EmbedBatch(std::span<const std::string> texts,
                                                               EmbedPurpose) const {
  const nlohmann::json body = {{"model", Space().model}, {"input", texts}};
  ENGRAM_ASSIGN_OR_RETURN(nlohmann::json answer,
                          client_->SendJson(BearerJsonPost(url_, api_key_, body), What()));
  return TakeArray(&answer, "embeddings", What());
}

}  // namespace engram
