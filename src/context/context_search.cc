#include "src/context/context_search.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <unordered_map>

#include "src/rank/fusion.h"
#include "src/vindex/best_window_index.h"

namespace engram {
namespace {

// Fusion's tie-break key: the chunk row, zero-padded so text order is
// number order.
std::string RowKey(int64_t rowid) {
  char buf[24];
  std::snprintf(buf, sizeof(buf), "%020lld", static_cast<long long>(rowid));
  return buf;
}

FusionOptions BlendWithoutTemporal(const FusionWeights& requested) {
  FusionOptions options;
  FusionWeights w{std::max(0.0, requested.semantic), std::max(0.0, requested.lexical), 0.0};
  if (w.semantic + w.lexical <= 0)
    w = FusionWeights{FusionWeights{}.semantic, FusionWeights{}.lexical, 0.0};
  options.weights = w;
  return options;
}

}  // namespace

Status RankChunks(ChunkStore& store, const std::vector<int64_t>& attachment_ids,
                  const LexicalQuery& query, const ChunkQueryVector& vector,
                  const ChunkRankOptions& options, ContextSearchResponse* response) {
  std::vector<int64_t> rowids;
  std::vector<FusionCandidate> candidates;
  std::unordered_map<int64_t, size_t> index_of;
  const auto candidate = [&](int64_t rowid) -> FusionCandidate& {
    const auto [it, added] = index_of.emplace(rowid, candidates.size());
    if (added) {
      rowids.push_back(rowid);
      candidates.emplace_back();
    }
    return candidates[it->second];
  };

  ENGRAM_ASSIGN_OR_RETURN(const std::vector<ChunkLexicalHit> lexical,
                          SearchChunksLexical(store, query, attachment_ids, options.bm25));
  for (const ChunkLexicalHit& hit : lexical) candidate(hit.rowid).lexical = hit.score;

  if (!vector.vector.empty()) {
    // Built for this one search: scanned on this thread, from its first row.
    FlatIndexOptions one_thread;
    one_thread.threads = 1;
    one_thread.parallel_min_rows = 0;
    const std::unique_ptr<VectorIndex> index =
        NewExactIndex(vector.vector.size(), vector.max_windows, 0, one_thread);
    Status upserted = Status::OK();
    ENGRAM_RETURN_IF_ERROR(store.ForEachVector(attachment_ids, vector.space_id,
                                               vector.vector.size(), vector.max_windows,
                                               [&](int64_t rowid, std::span<const float> v) {
                                                 if (upserted.ok())
                                                   upserted = index->Upsert(rowid, v);
                                               }));
    ENGRAM_RETURN_IF_ERROR(upserted);
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ScoredLabel> nearest,
                            index->Search(vector.vector, std::max(options.k, options.vector_top_k),
                                          static_cast<float>(options.min_cosine)));
    for (const ScoredLabel& hit : nearest) candidate(hit.label);
    for (size_t i = 0; i < candidates.size(); ++i) {
      const std::optional<float> cosine = index->Score(vector.vector, rowids[i]);
      if (cosine) candidates[i].semantic = *cosine;
    }
  }

  std::vector<std::string> keys;
  keys.reserve(rowids.size());  // the candidates view them
  for (size_t i = 0; i < rowids.size(); ++i) {
    keys.push_back(RowKey(rowids[i]));
    candidates[i].id = keys.back();
  }
  const FusionResult fused =
      Fuse(candidates, FusionMode::kBlended, BlendWithoutTemporal(options.weights));
  response->candidates = candidates.size();
  std::vector<int64_t> top;
  for (size_t i = 0; i < fused.ranked.size() && i < options.k; ++i) {
    top.push_back(rowids[fused.ranked[i].index]);
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ChunkRecord> records, store.Chunks(top));
  for (size_t i = 0; i < records.size() && i < top.size(); ++i) {
    const FusedCandidate& f = fused.ranked[i];
    ChunkRecord& r = records[i];
    if (r.rowid != top[i])
      return Internal("context: search: chunk " + std::to_string(top[i]) + " vanished");
    ContextHit hit;
    hit.attachment = std::move(r.attachment);
    hit.path = std::move(r.row.path);
    hit.start_line = r.row.start_line;
    hit.end_line = r.row.end_line;
    hit.text = std::move(r.row.text);
    hit.score = f.score;
    hit.lexical = f.lexical;
    hit.semantic = f.semantic;
    hit.weights = fused.weights;
    hit.weights.temporal = 0.0;
    response->hits.push_back(std::move(hit));
  }
  return Status::OK();
}

}  // namespace engram
