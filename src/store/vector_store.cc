#include "src/store/vector_store.h"

#include <cstring>
#include <string>
#include <vector>

#include "src/common/vector_blob.h"

namespace engram {

Status CopyVectorBlob(std::string_view blob, int64_t id, size_t dimension, size_t max_vectors,
                      std::vector<float>* buffer, std::string_view owner) {
  const size_t vectors = VectorsInBlob(blob.size(), dimension, max_vectors);
  if (vectors == 0) {
    return Corruption("store: " + std::string(owner) + " " + std::to_string(id) + " holds " +
                      std::to_string(blob.size()) + " bytes, want " +
                      BlobSizeWanted(dimension, max_vectors));
  }
  buffer->resize(vectors * dimension);
  std::memcpy(buffer->data(), blob.data(), blob.size());
  return Status::OK();
}

}  // namespace engram
