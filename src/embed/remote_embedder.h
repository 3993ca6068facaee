// RemoteEmbedder: what the HTTP embedding providers (openai, voyage,
// bedrock, ollama) share. A provider says how to embed one batch; this base
// does the rest, once for all of them:
//   - refuses empty or invalid UTF-8 texts before any call;
//   - splits the texts into batches of at most max_batch and runs them,
//     `parallelism` at a time (1: one after the other on the calling
//     thread);
//   - checks every answer: one vector per text, each an array of
//     Space().dimension finite numbers, not all zero; then L2-normalises;
//   - fails as a whole: the first failed batch stops the rest, and no
//     partial result is returned.
// Errors read "embed: <provider>: ..."; an answer that does not fit is
// Unavailable ("embed: openai: answer has 3 vectors for 4 texts").
//
// The helpers below it are the pieces the providers build requests and read
// answers with, and the rule that picks a model's dimension.
//
// Thread-safety: Embed may be called from several threads at once; a
// provider's EmbedBatch must allow that too.
#ifndef ENGRAM_SRC_EMBED_REMOTE_EMBEDDER_H_
#define ENGRAM_SRC_EMBED_REMOTE_EMBEDDER_H_

#include <cstddef>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engram/embedder.h"
#include "engram/remote.h"
#include "engram/status.h"
#include "src/http/http_client.h"
#include "src/http/json_request.h"

namespace engram {

class RemoteEmbedder : public Embedder {
 public:
  const EmbeddingSpace& Space() const final { return space_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose purpose) const final;

 protected:
  // `max_batch` >= 1 texts per call; `parallelism` >= 1 calls in flight.
  // `secrets` are scrubbed from every error Embed returns.
  RemoteEmbedder(EmbeddingSpace space, size_t max_batch, size_t parallelism,
                 std::vector<std::string> secrets);

  // One call to the API for `texts` (1..max_batch of them): the answer's
  // vectors as JSON values, in the order of `texts`, unchecked.
  virtual Result<std::vector<nlohmann::json>> EmbedBatch(std::span<const std::string> texts,
                                                         EmbedPurpose purpose) const = 0;

  // "embed: <provider>", the prefix of every error.
  const std::string& What() const { return what_; }

 private:
  Status EmbedInto(std::span<const std::string> texts, size_t first, EmbedPurpose purpose,
                   std::vector<std::vector<float>>* out) const;

  EmbeddingSpace space_;
  std::string what_;
  size_t max_batch_;
  size_t parallelism_;
  std::vector<std::string> secrets_;
};

// How a model's vector dimension may be chosen.
struct ModelDimensions {
  size_t native = 0;                // the model's own
  bool truncatable = false;         // any value in 1..native may be asked
  std::span<const size_t> choices;  // else exactly these; empty: native only
};

// A model whose dimension is known.
struct KnownModel {
  std::string_view name;
  ModelDimensions dims;
};

// The entry of `models` named `name`; null when there is none.
const KnownModel* FindModel(std::span<const KnownModel> models, std::string_view name);

// The dimension to use when `requested` (0: the native one) is asked of
// `model`, looked up in `models`. An unknown model takes `requested` as
// given. InvalidArgument, naming what the model offers, when it cannot give
// it, or when the model is unknown and no dimension was given (the message
// lists the known models).
Result<size_t> ChooseDimension(std::string_view what, std::string_view model,
                               std::span<const KnownModel> models, size_t requested);

// `names` joined for a message: "a, b or c".
std::string JoinNames(const std::vector<std::string_view>& names);

// OK when `options` has an API key or a base_url (a compatible server may
// need none); else InvalidArgument naming the environment variable that
// supplies the key.
Status RequireApiKey(const RemoteOptions& options, std::string_view what,
                     std::string_view variable);

// The array at `answer[key]`, its elements moved out. Unavailable when the
// answer has none.
Result<std::vector<nlohmann::json>> TakeArray(nlohmann::json* answer, std::string_view key,
                                              std::string_view what);

// The embeddings of an answer shaped {"data":[{"index":i,"embedding":[...]}]}
// (OpenAI, Voyage), ordered by index. Unavailable when an entry lacks an
// index or an embedding, or the indexes are not 0..n-1 once each.
Result<std::vector<nlohmann::json>> TakeIndexedData(nlohmann::json* answer, std::string_view what);

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_REMOTE_EMBEDDER_H_
