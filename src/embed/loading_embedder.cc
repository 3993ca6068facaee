#include "src/embed/loading_embedder.h"

#include <utility>

#include "src/common/run_beside.h"

namespace engram {

LoadingEmbedder::LoadingEmbedder(EmbeddingSpace space, Load load)
    : space_(std::move(space)),
      loaded_(RunBeside([load = std::move(load),
                         key = space_.Key()]() -> Result<std::shared_ptr<const Embedder>> {
                ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Embedder> embedder, load());
                if (embedder->Space().Key() != key) {
                  return Internal("embed: the model loaded embeds in " + embedder->Space().Key() +
                                  ", not " + key);
                }
                return std::shared_ptr<const Embedder>(std::move(embedder));
              }).share()) {}

Result<std::vector<std::vector<float>>> LoadingEmbedder::Embed(
    const std::vector<std::string>& texts, EmbedPurpose purpose) const {
  const Result<std::shared_ptr<const Embedder>>& loaded = loaded_.get();
  if (!loaded.ok()) return loaded.status();
  return (*loaded)->Embed(texts, purpose);
}

}  // namespace engram
