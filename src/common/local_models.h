// The models of the local provider (src/embed/local_embedder.h), named here
// so that the store and the engine can tell what a stored space's vectors
// are without linking the embedders.
#ifndef ENGRAM_SRC_COMMON_LOCAL_MODELS_H_
#define ENGRAM_SRC_COMMON_LOCAL_MODELS_H_

#include <cstddef>

namespace engram {

// File name of the converted model inside the models directory.
inline constexpr char kUseLiteModelFileName[] = "use-lite-en.bin";

// Three readings of one network, each an embedding space of its own since
// their vectors differ for texts over the model's 128 tokens:
//  - use-lite-en: a text's first 128 tokens, as the original model reads it;
//  - use-lite-en-windows: a long text in windows, their vectors averaged;
//  - use-lite-en-best-window: a long document in windows, one vector per
//    window, scored by its best window (a query is one vector).
inline constexpr char kUseLiteModel[] = "use-lite-en";
inline constexpr char kUseLiteWindowsModel[] = "use-lite-en-windows";
inline constexpr char kUseLiteBestWindowModel[] = "use-lite-en-best-window";

// Most windows of 128 tokens a document has in use-lite-en-best-window
// (2,048 tokens, about 1,500 English words); a longer text is read in its
// first 2,048 tokens.
inline constexpr size_t kUseLiteMaxWindows = 16;

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_LOCAL_MODELS_H_
