// CreateEmbedder: spec string -> provider (include/engram/embedder.h).
#include <charconv>
#include <filesystem>
#include <string>

#include "engram/embedder.h"
#include "src/embed/bedrock_embedder.h"
#include "src/embed/hash_embedder.h"
#include "src/embed/loading_embedder.h"
#include "src/embed/local_embedder.h"
#include "src/embed/model_location.h"
#include "src/embed/ollama_embedder.h"
#include "src/embed/openai_embedder.h"
#include "src/embed/voyage_embedder.h"

namespace engram {
namespace {

// Provider "null": no embeddings; the semantic signal stays off.
class NullEmbedder final : public Embedder {
 public:
  const EmbeddingSpace& Space() const override { return space_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>&,
                                                EmbedPurpose) const override {
    return FailedPrecondition("embed: null provider: embeddings are turned off");
  }

 private:
  EmbeddingSpace space_{"null", "none", 0};
};

constexpr size_t kDefaultHashDimension = 256;

Result<size_t> HashDimension(const std::string& params) {
  if (params.empty()) return kDefaultHashDimension;
  if (params.rfind("dim=", 0) != 0) {
    return InvalidArgument("embed: spec 'hash:" + params + "': expected hash:dim=N");
  }
  const std::string value = params.substr(4);
  size_t dim = 0;
  const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), dim);
  if (ec != std::errc() || ptr != value.data() + value.size() || dim < 8 || dim > 4096) {
    return InvalidArgument("embed: spec 'hash:" + params +
                           "': dim must be a whole number in 8..4096");
  }
  return dim;
}

// Widens a provider's own type to Embedder.
template <typename T>
Result<std::unique_ptr<Embedder>> AsEmbedder(Result<std::unique_ptr<T>> made) {
  if (!made.ok()) return made.status();
  return std::unique_ptr<Embedder>(std::move(made).value());
}

}  // namespace

Result<std::unique_ptr<Embedder>> CreateEmbedder(const std::string& spec,
                                                 const EmbedderOptions& options) {
  // The first colon only: Bedrock's model ids have colons of their own.
  const size_t colon = spec.find(':');
  const std::string provider = spec.substr(0, colon);
  const std::string params = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (provider == "null") return std::unique_ptr<Embedder>(new NullEmbedder());
  if (provider == "hash") {
    ENGRAM_ASSIGN_OR_RETURN(size_t dim, HashDimension(params));
    return std::unique_ptr<Embedder>(new HashEmbedder(dim));
  }
  if (provider == "local") {
    UseLiteEncoderOptions encoder_options;
    encoder_options.map_model_file = options.map_model_file;
    if (params == kUseLiteWindowsModel) {
      encoder_options.long_text = UseLiteLongText::kWindows;
    } else if (params == kUseLiteBestWindowModel) {
      encoder_options.long_text = UseLiteLongText::kBestWindow;
    } else if (!params.empty() && params != kUseLiteModel) {
      return InvalidArgument("embed: spec '" + spec + "': the local provider's models are " +
                             kUseLiteModel + ", " + kUseLiteWindowsModel + " and " +
                             kUseLiteBestWindowModel);
    }
    const ModelLookup model = LocateModel(
        options.models_dir.empty() ? ProcessModelPlaces()
                                   : std::vector<ModelPlace>{{options.models_dir, "models_dir"}},
        kUseLiteModelFileName);
    if (!model.Found()) {
      return NotFound(model.NotFoundMessage(kUseLiteModelFileName));
    }
    const auto load = [path = model.path, encoder_options]() -> Result<std::unique_ptr<Embedder>> {
      ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<LocalEmbedder> local,
                              LocalEmbedder::Load(path, encoder_options));
      return std::unique_ptr<Embedder>(std::move(local));
    };
    if (options.load_in_background) {
      return std::unique_ptr<Embedder>(
          new LoadingEmbedder(LocalEmbedder::SpaceOf(encoder_options), load));
    }
    return load();
  }
  // The remote providers: the spec's model, else the options' one, else
  // the provider's default.
  const std::string model = params.empty() ? options.model : params;
  if (provider == "openai") return AsEmbedder(OpenAiEmbedder::Create(model, options));
  if (provider == "voyage") return AsEmbedder(VoyageEmbedder::Create(model, options));
  if (provider == "bedrock") return AsEmbedder(BedrockEmbedder::Create(model, options));
  if (provider == "ollama") return AsEmbedder(OllamaEmbedder::Create(model, options));
  return InvalidArgument(
      "embed: spec '" + spec +
      "': unknown provider (expected local, hash, openai, voyage, bedrock, ollama or null)");
}

}  // namespace engram
