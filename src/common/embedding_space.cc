// EmbeddingSpace's methods; here so that the store can name spaces and read
// their vectors without linking the embedders.
#include <string>

#include "engram/embedder.h"
#include "src/common/local_models.h"

namespace engram {

std::string EmbeddingSpace::Key() const {
  return provider + ":" + model + ":" + std::to_string(dimension);
}

size_t EmbeddingSpace::MaxVectorsPerDocument() const {
  return provider == "local" && model == kUseLiteBestWindowModel ? kUseLiteMaxWindows : 1;
}

}  // namespace engram
