// How a stored vector blob is laid out: float32 in the machine's byte order
// (little-endian on every platform engram builds on), `dimension` of them
// per vector, and 1 to EmbeddingSpace::MaxVectorsPerDocument() vectors one
// after another (a windowed space's document has one per window).
#ifndef ENGRAM_SRC_COMMON_VECTOR_BLOB_H_
#define ENGRAM_SRC_COMMON_VECTOR_BLOB_H_

#include <cstddef>
#include <string>

namespace engram {

// How many vectors a blob of `bytes` bytes holds: bytes / (dimension * 4)
// when that is a whole number from 1 to `max_vectors`, else 0 (the blob is
// not a vector of the space).
inline size_t VectorsInBlob(size_t bytes, size_t dimension, size_t max_vectors) {
  const size_t vector_bytes = dimension * sizeof(float);
  if (vector_bytes == 0 || bytes == 0 || bytes % vector_bytes != 0) return 0;
  const size_t count = bytes / vector_bytes;
  return count <= max_vectors ? count : 0;
}

// What VectorsInBlob wants, for error messages: "2048 bytes" or "a multiple
// of 2048 bytes, at most 32768".
inline std::string BlobSizeWanted(size_t dimension, size_t max_vectors) {
  const size_t vector_bytes = dimension * sizeof(float);
  if (max_vectors <= 1) return std::to_string(vector_bytes) + " bytes";
  return "a multiple of " + std::to_string(vector_bytes) + " bytes, at most " +
         std::to_string(vector_bytes * max_vectors);
}

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_VECTOR_BLOB_H_
