#include "src/embed/openai_embedder.h"

#include <utility>

namespace engram {
namespace {

constexpr size_t kMaxBatch = 2048;

constexpr KnownModel kModels[] = {
    {"text-embedding-3-small", {1536, true, {}}},
    {"text-embedding-3-large", {3072, true, {}}},
    {"text-embedding-ada-002", {1536, false, {}}},
};

}  // namespace

Result<std::unique_ptr<OpenAiEmbedder>> OpenAiEmbedder::Create(
    std::string model, const EmbedderOptions& options, std::shared_ptr<const HttpClient> client) {
  constexpr std::string_view kWhat = "embed: openai";
  if (model.empty()) model = kOpenAiEmbedDefaultModel;
  ENGRAM_RETURN_IF_ERROR(RequireApiKey(options.remote, kWhat, "OPENAI_API_KEY"));
  ENGRAM_ASSIGN_OR_RETURN(size_t dimension,
                          ChooseDimension(kWhat, model, kModels, options.dimensions));
  const KnownModel* known = FindModel(kModels, model);
  std::optional<size_t> send;
  if (known != nullptr && known->dims.truncatable && dimension < known->dims.native) {
    send = dimension;
  }
  if (client == nullptr) client = DefaultHttpClient(options.remote);
  return std::unique_ptr<OpenAiEmbedder>(new OpenAiEmbedder(
      {"openai", std::move(model), dimension}, send, std::move(client), options.remote));
}

OpenAiEmbedder::OpenAiEmbedder(EmbeddingSpace space, std::optional<size_t> send_dimensions,
                               std::shared_ptr<const HttpClient> client,
                               const RemoteOptions& options)
    : RemoteEmbedder(std::move(space), kMaxBatch, 1, {options.api_key}),
      send_dimensions_(send_dimensions),
      client_(std::move(client)),
      url_(BaseUrlOr(options.base_url, "https://api.openai.com") + "/v1/embeddings"),
      api_key_(options.api_key) {}

Result<std::vector<nlohmann::json>> OpenAiEmbedder::EmbedBatch(std::span<const std::string> texts,
                                                               EmbedPurpose) const {
  nlohmann::json body = {{"input", texts}, {"model", Space().model}, {"encoding_format", "float"}};
  if (send_dimensions_) body["dimensions"] = *send_dimensions_;
  ENGRAM_ASSIGN_OR_RETURN(nlohmann::json answer,
                          client_->SendJson(BearerJsonPost(url_, api_key_, body), What()));
  return TakeIndexedData(&answer, What());
}

}  // namespace engram
