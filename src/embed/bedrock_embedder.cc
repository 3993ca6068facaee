#include "src/embed/bedrock_embedder.h"

#include <utility>

namespace engram {
namespace {

constexpr std::string_view kWhat = "embed: bedrock";
constexpr std::string_view kTitanV2 = "amazon.titan-embed-text-v2:0";
constexpr std::string_view kTitanV1 = "amazon.titan-embed-text-v1";
constexpr std::string_view kCohereEnglish = "cohere.embed-english-v3";
constexpr std::string_view kCohereMultilingual = "cohere.embed-multilingual-v3";

// Titan embeds one text a call; this many calls run at once.
constexpr size_t kTitanParallelism = 8;
// Cohere's limit of texts a call.
constexpr size_t kCohereMaxBatch = 96;

constexpr size_t kTitanV2Dimensions[] = {256, 512, 1024};

constexpr KnownModel kModels[] = {
    {kTitanV2, {1024, false, kTitanV2Dimensions}},
    {kTitanV1, {1536, false, {}}},
    {kCohereEnglish, {1024, false, {}}},
    {kCohereMultilingual, {1024, false, {}}},
};

}  // namespace

Result<std::unique_ptr<BedrockEmbedder>> BedrockEmbedder::Create(
    std::string model, const EmbedderOptions& options, std::shared_ptr<const HttpClient> client) {
  if (model.empty()) model = kBedrockEmbedDefaultModel;
  Format format = Format::kCohere;
  if (model == kTitanV2) {
    format = Format::kTitanV2;
  } else if (model == kTitanV1) {
    format = Format::kTitanV1;
  } else if (FindModel(kModels, model) == nullptr) {
    return InvalidArgument(std::string(kWhat) + ": unknown model '" + model + "' (expected " +
                           JoinNames({kTitanV2, kTitanV1, kCohereEnglish, kCohereMultilingual}) +
                           ")");
  }
  ENGRAM_ASSIGN_OR_RETURN(size_t dimension,
                          ChooseDimension(kWhat, model, kModels, options.dimensions));
  if (client == nullptr) client = DefaultHttpClient(options.remote);
  auto bedrock = BedrockClient::Create(std::move(client), options.remote);
  if (!bedrock.ok()) return bedrock.status().WithContext(kWhat);
  return std::unique_ptr<BedrockEmbedder>(
      new BedrockEmbedder({"bedrock", std::move(model), dimension}, format,
                          std::move(bedrock).value(), options.remote));
}

BedrockEmbedder::BedrockEmbedder(EmbeddingSpace space, Format format,
                                 std::unique_ptr<BedrockClient> bedrock,
                                 const RemoteOptions& options)
    : RemoteEmbedder(std::move(space), format == Format::kCohere ? kCohereMaxBatch : 1,
                     format == Format::kCohere ? 1 : kTitanParallelism,
                     {options.aws.secret_access_key, options.aws.session_token}),
      format_(format),
      bedrock_(std::move(bedrock)) {}

Result<std::vector<nlohmann::json>> BedrockEmbedder::EmbedBatch(std::span<const std::string> texts,
                                                                EmbedPurpose purpose) const {
  nlohmann::json body;
  switch (format_) {
    case Format::kTitanV2:
      body = {{"inputText", texts[0]}, {"dimensions", Space().dimension}, {"normalize", true}};
      break;
    case Format::kTitanV1:
      body = {{"inputText", texts[0]}};
      break;
    case Format::kCohere:
      body = {{"texts", texts},
              {"input_type", purpose == EmbedPurpose::kQuery ? "search_query" : "search_document"},
              {"truncate", "END"}};
      break;
  }
  ENGRAM_ASSIGN_OR_RETURN(nlohmann::json answer,
                          bedrock_->Post(Space().model, "invoke", body, What()));
  if (format_ == Format::kCohere) return TakeArray(&answer, "embeddings", What());
  const auto it = answer.is_object() ? answer.find("embedding") : answer.end();
  if (it == answer.end()) return Unavailable(What() + ": answer has no 'embedding'");
  std::vector<nlohmann::json> vectors;
  vectors.push_back(std::move(*it));
  return vectors;
}

}  // namespace engram
