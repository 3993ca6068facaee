// Embedder: text in, unit vectors out, for the semantic signal (DESIGN §7).
//
// An embedder belongs to one embedding space: provider + model + dimension.
// Vectors of different spaces are never compared. Providers are chosen by a
// spec string (CreateEmbedder, below): "local" (the embedded USE-Lite
// model, default), "hash" (feature hashing, for tests), the HTTP providers
// openai, voyage, bedrock and ollama, and "null" (keyword-only search).
//
// Thread-safety: Embed may be called from several threads at once.
#ifndef ENGRAM_EMBEDDER_H_
#define ENGRAM_EMBEDDER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "engram/export.h"
#include "engram/remote.h"
#include "engram/status.h"

namespace engram {

// What a text is embedded for; some providers embed queries and documents
// differently.
enum class EmbedPurpose { kDocument, kQuery };

// An embedding space. Two embedders with equal spaces produce comparable
// vectors.
struct ENGRAM_EXPORT EmbeddingSpace {
  std::string provider;  // "local", "hash", ...
  std::string model;     // "use-lite-en", "fnv1a", ...
  size_t dimension = 0;

  // "local:use-lite-en:512".
  std::string Key() const;

  // Most vectors a document has in the space: 1, except in a space that
  // scores a long document by its best window (local:use-lite-en-best-window,
  // 16), where a document has one vector per window of its text.
  size_t MaxVectorsPerDocument() const;
};

class ENGRAM_EXPORT Embedder {
 public:
  virtual ~Embedder() = default;

  virtual const EmbeddingSpace& Space() const = 0;

  // One L2-normalised vector of Space().dimension floats per text, in
  // order. In a space whose MaxVectorsPerDocument() is above 1, a document
  // (kDocument) is 1 to that many such vectors, one after another, its
  // windows in the text's order; a query is always one. Fails as a whole
  // (never a partial result).
  virtual Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                        EmbedPurpose purpose) const = 0;
};

struct EmbedderOptions {
  // Directory of converted local models; the local provider reads
  // use-lite-en.bin from it. Empty (the default): the first of
  // $ENGRAM_HOME/models, the user's data directory
  // ($XDG_DATA_HOME/engram/models, else ~/.local/share/engram/models) and
  // the install prefix's share/engram/models that holds the file.
  std::string models_dir;
  // The model, when the spec names none; empty: the provider's default.
  std::string model;
  // Vector dimension wanted; 0: the model's native one. Sent to the API
  // only to truncate (a value below the native dimension of a model that
  // supports it); Titan v2 takes 256, 512 or 1024; a model whose native
  // dimension is unknown (Ollama, OpenAI-compatible servers) must be given
  // one, which is then checked against every answer.
  size_t dimensions = 0;
  // Endpoint, credentials, timeouts and retries of the HTTP providers.
  RemoteOptions remote;
  // The local provider maps its model file rather than reading it whole:
  // a process that embeds a few texts and exits touches only the pages it
  // uses, but a model file truncated in place under the mapping would end
  // it (SIGBUS). Default false, for processes that run for long; engram's
  // one-shot commands set it.
  bool map_model_file = false;
  // The local provider loads its model on a thread of its own, begun as the
  // embedder is made, rather than before it returns: a process that opens
  // its store meanwhile overlaps the two (about 0.7 ms of a one-shot
  // search here). Space() answers at once; the first Embed waits for the
  // load. A model that fails to load then fails every Embed with the load's
  // error, where without it making the embedder fails. Default false;
  // `engram search` sets it.
  bool load_in_background = false;
};

// Builds the embedder a spec "<provider>[:<model or parameters>]" names:
//   local, local:use-lite-en     the embedded USE-Lite model (512-d)
//   local:use-lite-en-windows    the same, long texts read whole, in windows
//                                whose vectors are averaged
//   local:use-lite-en-best-window  the same windows, one vector each; a
//                                document scores by its best window
//   hash, hash:dim=N             feature hashing, 8 <= N <= 4096 (default 256)
//   openai[:MODEL]               POST {base}/v1/embeddings, <= 2048 inputs a
//                                call (default text-embedding-3-small, 1536)
//   voyage[:MODEL]               POST {base}/v1/embeddings, input_type query
//                                or document, <= 1000 inputs (default voyage-3.5)
//   bedrock[:MODEL]              POST {base}/model/{id}/invoke, SigV4: Titan v1,
//                                Titan v2 (one text a call, 8 in parallel),
//                                Cohere v3 (<= 96 texts a call)
//                                (default amazon.titan-embed-text-v2:0)
//   ollama[:MODEL]               POST {base}/api/embed (default nomic-embed-text)
//   null                         always fails: keyword-only search
// InvalidArgument for an unknown provider or model, a bad parameter or
// dimension, or a missing API key (named by its variable); NotFound when
// the local model file is missing (the message says how to create it). No
// call is made here: a remote provider is first reached by Embed.
ENGRAM_EXPORT Result<std::unique_ptr<Embedder>> CreateEmbedder(const std::string& spec,
                                                               const EmbedderOptions& options);

}  // namespace engram

#endif  // ENGRAM_EMBEDDER_H_
