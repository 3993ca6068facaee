// The model file of the embedded USE-Lite encoder (DESIGN §7, provider
// `local`): everything the encoder needs, vocabulary included, in one file
// written by ConvertUseLitePackage (use_lite_converter.h) from the original
// TensorFlow.js package.
//
// Format, version 4. Every integer and float is little-endian; strings are
// UTF-8 with no terminator; the only padding is zero bytes before each
// array of the tokenizer's tables and before each tensor's values.
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
//   the tokenizer's tables (UseLiteTokenizer::Tables), as FromPieces builds
//   them from the vocabulary, each array after zero bytes up to the next
//   file offset that is a multiple of 8:
//              u32      node_count, u32 edge_slots (a power of two)
//              i32      piece_utf16_length, piece_count many
//              i32      node_piece, node_count many
//              f64      node_score, node_count many
//              i32      root_children, 256
//              u32 key, i32 child: the edge table, edge_slots many
//   tensors, tensor_count times, names unique:
//              u32      byte length, then the name's bytes
//              u32      rank (0 for a scalar, at most 4)
//              u32      each dimension, rank times
//              zero bytes up to the next file offset that is a multiple of 64
//              f32      the values, product-of-dimensions many, row-major
//   trailer    u64      FastChecksum64 (src/common/hash.h) of every byte before it
//
// The tensors the encoder needs are named in use_lite_converter.cc. A dense
// layer `name` is stored as `name`.bias [out] and its kernel twice, once
// for each product the encoder has (use_lite_kernels.h): `name`.kernel
// [in, out], row-major, as OpenBLAS sgemm reads it for large batches, and
// `name`.panels [out / 16, in, 16], the same values in the column panels of
// the encoder's own kernel for a few rows (UseLitePackPanels). Both are used
// in place; the file is about 20 MB larger for it, 47 MB in all.
//
// A reader checks the trailer before anything else, so a truncated or
// altered file reads as Corruption, and then bounds-checks every field; a
// file whose stamp (src/common/verified_stamp.h) says it was verified as it is now skips
// the hash of its bytes. By default it reads the file whole into memory of
// its own (FileContents), not a map, so a file replaced or truncated under
// a running process cannot take it down; a one-shot process maps it
// instead (UseLiteModelReadOptions::map) and touches only what it uses (a
// query reads the packed kernels, not the row-major ones). The tensors are
// used where they lie, 64-byte aligned.
//
// Thread-safety: plain functions over values; safe from many threads.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_MODEL_FILE_H_
#define ENGRAM_SRC_EMBED_USE_LITE_MODEL_FILE_H_

#include <cstddef>
#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engram/status.h"
#include "src/common/file_contents.h"
#include "src/embed/use_lite_tokenizer.h"

namespace engram {

inline constexpr char kUseLiteModelMagic[] = "ENGRAMUL";  // 8 bytes on disk
// Version 4: the tokenizer's tables, read in place instead of built from
// the vocabulary by every process (version 3 had tensor values 64-byte
// aligned, version 2 no padding, version 1 an Fnv1a64 trailer).
inline constexpr uint32_t kUseLiteModelVersion = 4;

// Name suffixes of a dense layer's kernel, row-major and packed (see the
// format above).
inline constexpr std::string_view kUseLiteKernelSuffix = ".kernel";
inline constexpr std::string_view kUseLitePanelsSuffix = ".panels";

// A named float32 array; `values.size()` is the product of `shape`. The
// values are a view: of the file's contents when read, of the writer's own
// arrays when written.
struct UseLiteTensor {
  std::vector<uint32_t> shape;
  std::span<const float> values;
};

// The content of a model file.
struct UseLiteModelData {
  uint32_t max_tokens = 0;
  uint32_t output_dim = 0;
  // The vocabulary: written always; read only with
  // UseLiteModelReadOptions::full_check, which then checks the tables
  // against it.
  std::vector<UseLiteTokenizer::Piece> pieces;
  // The tokenizer's tables: a view of a tokenizer's own when written, of
  // the file's contents when read (checked by UseLiteTokenizer::FromTables
  // when loaded).
  UseLiteTokenizer::Tables tokenizer;
  std::map<std::string, UseLiteTensor> tensors;
  // What the tensors of a model read from a file point into; they are
  // valid while it lives (copies of the data share it). Null for a model
  // built in memory, whose builder owns the arrays.
  std::shared_ptr<const FileContents> storage;
};

// Writes `model` to `path` (through a temporary file renamed into place).
// InvalidArgument when a tensor's values do not match its shape; IOError
// when the file cannot be written.
Status WriteUseLiteModelFile(const UseLiteModelData& model, const std::string& path);

struct UseLiteModelReadOptions {
  // Map the file rather than read it (FileContents::Map). Default false.
  bool map = false;
  // Hash every byte even when the stamp says the file was verified as it
  // is, read the vocabulary, and check that the tokenizer's tables are
  // those it builds. Default false.
  bool full_check = false;
};

// Reads a model file. NotFound when it does not exist, Corruption when it
// is truncated, altered or malformed, NotSupported for another version.
Result<UseLiteModelData> ReadUseLiteModelFile(const std::string& path,
                                              const UseLiteModelReadOptions& options = {});

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_USE_LITE_MODEL_FILE_H_
