// The model file of the embedded USE-Lite encoder (DESIGN §7, provider
// `local`): everything the encoder needs, vocabulary included, in one file
// written by ConvertUseLitePackage (use_lite_converter.h) from the original
// TensorFlow.js package.
//
// Format, version 1. Every integer and float is little-endian; strings are
// UTF-8 with no terminator; there is no padding.
//
//   offset 0   magic    8 bytes  "ENGRAMUL"
//              u32      version (kUseLiteModelVersion)
//              u32      max_tokens   tokens the model reads (128)
//              u32      output_dim   length of an embedding (512)
//              u32      piece_count  vocabulary entries
//              u32      tensor_count
//   vocabulary, piece_count times, the id of a piece being its index:
//              u32      byte length, then the piece's bytes
//              f64      score (log-probability; vocab.json's null is 0)
//   tensors, tensor_count times, names unique:
//              u32      byte length, then the name's bytes
//              u32      rank (0 for a scalar, at most 4)
//              u32      each dimension, rank times
//              f32      the values, product-of-dimensions many, row-major
//   trailer    u64      FastChecksum64 (src/common/hash.h) of every byte before it
//
// A reader checks the trailer before anything else, so a truncated or
// altered file reads as Corruption, and then bounds-checks every field.
//
// Thread-safety: plain functions over values; safe from many threads.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_MODEL_FILE_H_
#define ENGRAM_SRC_EMBED_USE_LITE_MODEL_FILE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/embed/use_lite_tokenizer.h"

namespace engram {

inline constexpr char kUseLiteModelMagic[] = "ENGRAMUL";  // 8 bytes on disk
// Version 2: the trailer is FastChecksum64 (version 1 used Fnv1a64).
inline constexpr uint32_t kUseLiteModelVersion = 2;

// A named float32 array; `values.size()` is the product of `shape`.
struct UseLiteTensor {
  std::vector<uint32_t> shape;
  std::vector<float> values;
};

// The content of a model file.
struct UseLiteModelData {
  uint32_t max_tokens = 0;
  uint32_t output_dim = 0;
  std::vector<UseLiteTokenizer::Piece> pieces;
  std::map<std::string, UseLiteTensor> tensors;
};

// Writes `model` to `path` (through a temporary file renamed into place).
// InvalidArgument when a tensor's values do not match its shape; IOError
// when the file cannot be written.
Status WriteUseLiteModelFile(const UseLiteModelData& model, const std::string& path);

// Reads a whole model file. NotFound when it does not exist, Corruption
// when it is truncated, altered or malformed, NotSupported for another
// version.
Result<UseLiteModelData> ReadUseLiteModelFile(const std::string& path);

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_USE_LITE_MODEL_FILE_H_
