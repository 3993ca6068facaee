#include "src/embed/voyage_embedder.h"

#include <utility>

namespace engram {
namespace {

constexpr size_t kMaxBatch = 1000;

constexpr size_t kFlexible[] = {256, 512, 1024, 2048};

constexpr KnownModel kModels[] = {
    {"voyage-3.5", {1024, false, kFlexible}},
    {"voyage-3.5-lite", {1024, false, kFlexible}},
    {"voyage-3-large", {1024, false, kFlexible}},
    {"voyage-code-3", {1024, false, kFlexible}},
    {"voyage-3", {1024, false, {}}},
    {"voyage-3-lite", {512, false, {}}},
    {"voyage-multilingual-2", {1024, false, {}}},
    {"voyage-finance-2", {1024, false, {}}},
    {"voyage-law-2", {1024, false, {}}},
    {"voyage-code-2", {1536, false, {}}},
};

}  // namespace

Result<std::unique_ptr<VoyageEmbedder>> VoyageEmbedder::Create(
    std::string model, const EmbedderOptions& options, std::shared_ptr<const HttpClient> client) {
  constexpr std::string_view kWhat = "embed: voyage";
  if (model.empty()) model = kVoyageEmbedDefaultModel;
  ENGRAM_RETURN_IF_ERROR(RequireApiKey(options.remote, kWhat, "VOYAGE_API_KEY"));
  ENGRAM_ASSIGN_OR_RETURN(size_t dimension,
                          ChooseDimension(kWhat, model, kModels, options.dimensions));
  const KnownModel* known = FindModel(kModels, model);
  std::optional<size_t> send;
  if (known != nullptr && !known->dims.choices.empty() && dimension != known->dims.native) {
    send = dimension;
  }
  if (client == nullptr) client = DefaultHttpClient(options.remote);
  return std::unique_ptr<VoyageEmbedder>(new VoyageEmbedder(
      {"voyage", std::move(model), dimension}, send, std::move(client), options.remote));
}

VoyageEmbedder::VoyageEmbedder(EmbeddingSpace space, std::optional<size_t> send_dimension,
                               std::shared_ptr<const HttpClient> client,
                               const RemoteOptions& options)
    : RemoteEmbedder(std::move(space), kMaxBatch, 1, {options.api_key}),
      send_dimension_(send_dimension),
      client_(std::move(client)),
      url_(BaseUrlOr(options.base_url, "https://api.voyageai.com") + "/v1/embeddings"),
      api_key_(options.api_key) {}

Result<std::vector<nlohmann::json>> VoyageEmbedder::EmbedBatch(std::span<const std::string> texts,
                                                               EmbedPurpose purpose) const {
  nlohmann::json body = {{"input", texts},
                         {"model", Space().model},
                         {"input_type", purpose == EmbedPurpose::kQuery ? "query" : "document"}};
  if (send_dimension_) body["output_dimension"] = *send_dimension_;
  ENGRAM_ASSIGN_OR_RETURN(nlohmann::json answer,
                          client_->SendJson(BearerJsonPost(url_, api_key_, body), What()));
  return TakeIndexedData(&answer, What());
}

}  // namespace engram
