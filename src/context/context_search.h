// RankChunks: the ranking of attached-file chunks for one query (DESIGN §4
// without the temporal signal).
//
// The same retrieval core as the facts' search: BM25 from the lexical
// module (SearchChunksLexical), an exact index of src/vindex, and fusion
// of src/rank; the store's part is ChunkStore, on any backend.
//
// Candidates are every chunk of the searched attachments holding a query
// term (BM25 over the chunk text, statistics of those attachments only) and
// the best max(k, top_k) chunks by cosine at or above min_cosine (exact
// scan of a FlatIndex built for the search); every candidate with a vector
// gets its true cosine. Both signals are min-max normalised over the
// candidates and blended with the semantic and lexical weights, renormalised
// to sum to 1 (src/rank/fusion.h). Ties break by chunk row, i.e. by path
// and line as attached.
//
// Thread-safety: none; uses the store under the caller's lock.
#ifndef ENGRAM_SRC_CONTEXT_CONTEXT_SEARCH_H_
#define ENGRAM_SRC_CONTEXT_CONTEXT_SEARCH_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "engram/context.h"
#include "engram/options.h"
#include "engram/status.h"
#include "src/lexical/lexical_searcher.h"
#include "src/store/chunk_store.h"

namespace engram {

struct ChunkRankOptions {
  size_t k = 8;
  FusionWeights weights;  // temporal ignored
  Bm25Options bm25;
  size_t vector_top_k = 12;
  double min_cosine = 0.25;
};

// The query vector, when there is one (unit length, of the space).
struct ChunkQueryVector {
  std::span<const float> vector;  // empty: lexical only
  int64_t space_id = 0;
  // Most vectors a chunk has in the space (EmbeddingSpace::
  // MaxVectorsPerDocument); above 1 a chunk scores by its best window.
  size_t max_windows = 1;
};

// Fills response->hits and response->candidates.
Status RankChunks(ChunkStore& store, const std::vector<int64_t>& attachment_ids,
                  const LexicalQuery& query, const ChunkQueryVector& vector,
                  const ChunkRankOptions& options, ContextSearchResponse* response);

}  // namespace engram

#endif  // ENGRAM_SRC_CONTEXT_CONTEXT_SEARCH_H_
