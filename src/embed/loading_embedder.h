// LoadingEmbedder: an embedder whose model loads on a thread of its own
// from the moment it is made (RunBeside), so that a process opens its store
// while the model loads. Space() answers at once, as the space is known
// before the model is read; Embed waits for the load, then embeds, or gives
// the load's error (every call, the same error).
//
// Thread-safety: Space and Embed may be called from any number of threads,
// as the loaded embedder's Embed may. The destructor waits for a load
// under way (std::async's shared state).
#ifndef ENGRAM_SRC_EMBED_LOADING_EMBEDDER_H_
#define ENGRAM_SRC_EMBED_LOADING_EMBEDDER_H_

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "engram/embedder.h"

namespace engram {

class LoadingEmbedder final : public Embedder {
 public:
  using Load = std::function<Result<std::unique_ptr<Embedder>>()>;

  // Starts `load`, which must give an embedder of `space`.
  LoadingEmbedder(EmbeddingSpace space, Load load);
  LoadingEmbedder(const LoadingEmbedder&) = delete;
  LoadingEmbedder& operator=(const LoadingEmbedder&) = delete;

  const EmbeddingSpace& Space() const override { return space_; }
  // The loaded embedder's answer; the load's error when it failed, and
  // Internal when it gave an embedder of another space.
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose purpose) const override;

 private:
  EmbeddingSpace space_;
  std::shared_future<Result<std::shared_ptr<const Embedder>>> loaded_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_LOADING_EMBEDDER_H_
