// Embedder: text in, unit vectors out, for the semantic signal (DESIGN §7).
//
// An embedder belongs to one embedding space: provider + model + dimension.
// Vectors of different spaces are never compared. Providers are chosen by a
// spec string: "local" (the embedded USE-Lite model, default), "hash"
// ("hash:dim=256"; deterministic feature hashing, for tests, no semantics),
// "null" (always fails: keyword-only search).
//
// Thread-safety: Embed may be called from several threads at once.
#ifndef ENGRAM_EMBEDDER_H_
#define ENGRAM_EMBEDDER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram {

// What a text is embedded for; some providers embed queries and documents
// differently.
enum class EmbedPurpose { kDocument, kQuery };

// An embedding space. Two embedders with equal spaces produce comparable
// vectors.
struct EmbeddingSpace {
  std::string provider;  // "local", "hash", ...
  std::string model;     // "use-lite-en", "fnv1a", ...
  size_t dimension = 0;

  // "local:use-lite-en:512".
  std::string Key() const;
};

class Embedder {
 public:
  virtual ~Embedder() = default;

  virtual const EmbeddingSpace& Space() const = 0;

  // One L2-normalised vector of Space().dimension floats per text, in
  // order. Fails as a whole (never a partial result).
  virtual Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                        EmbedPurpose purpose) const = 0;
};

struct EmbedderOptions {
  // Directory of converted local models ($ENGRAM_HOME/models); the local
  // provider reads use-lite-en.bin from it.
  std::string models_dir;
};

// Builds the embedder a spec names: "local", "local:use-lite-en",
// "local:use-lite-en-windows" (long texts read whole, in windows), "hash",
// "hash:dim=N" (8 <= N <= 4096, default 256), "null". InvalidArgument for
// an unknown provider or a bad parameter; NotFound when the local model
// file is missing (the message says how to create it).
Result<std::unique_ptr<Embedder>> CreateEmbedder(const std::string& spec,
                                                 const EmbedderOptions& options);

}  // namespace engram

#endif  // ENGRAM_EMBEDDER_H_
