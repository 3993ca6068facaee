// EmbeddingSpace's one method; here so that the store can name spaces
// without linking the embedders.
#include <string>

#include "engram/embedder.h"

namespace engram {

std::string EmbeddingSpace::Key() const {
  return provider + ":" + model + ":" + std::to_string(dimension);
}

}  // namespace engram
