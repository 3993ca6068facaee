// HashEmbedder: deterministic feature hashing (provider "hash"). Each
// analysed term of a text (src/text: folded, stemmed, no stop words) and
// each character trigram of its folded form adds ±1 to one of `dimension`
// buckets (FNV-1a picks bucket and sign); the sum is L2-normalised. Texts
// sharing words share buckets, so cosine tracks word overlap; there are no
// semantics. For tests and as a fast offline stand-in.
//
// Thread-safety: stateless after construction.
#ifndef ENGRAM_SRC_EMBED_HASH_EMBEDDER_H_
#define ENGRAM_SRC_EMBED_HASH_EMBEDDER_H_

#include "engram/embedder.h"

namespace engram {

class HashEmbedder final : public Embedder {
 public:
  explicit HashEmbedder(size_t dimension);

  const EmbeddingSpace& Space() const override { return space_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose purpose) const override;

 private:
  EmbeddingSpace space_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_EMBED_HASH_EMBEDDER_H_
