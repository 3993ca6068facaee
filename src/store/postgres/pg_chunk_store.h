// PgChunkStore: ChunkStore in PostgreSQL (pg_schema.h's context_* tables,
// schema version 3). A chunk's row id is its `id`; its full-text index is
// the term arrays `index_terms` and `index_tf` (pg_term_index.h), written
// with the chunk from the same analyser output as SQLite's FTS5 index, so
// BM25 reads the same term frequencies on both stores.
//
// Thread-safety: none; it works on its PgStore's connection.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_CHUNK_STORE_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_CHUNK_STORE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "src/store/chunk_store.h"
#include "src/store/postgres/pg_session.h"

namespace engram {

class PgChunkStore final : public ChunkStore, private PgPart {
 public:
  // Works on `session`'s connection.
  explicit PgChunkStore(PgSession* session) : PgPart(session) {}

  Result<StoredAttachment> Find(const std::string& name) override;
  Result<std::vector<StoredAttachment>> List() override;
  Status Touch(int64_t id, const std::string& chunking, Timestamp now) override;
  Status Delete(int64_t id) override;
  Result<int64_t> Restore(const StoredAttachment& from) override;

  Result<std::vector<StoredFile>> Files(int64_t id) override;
  Status PutFile(int64_t id, const StoredFile& file) override;
  Status RemoveFile(int64_t id, const std::string& path) override;
  Status ReplaceChunks(int64_t id, const std::string& path,
                       const std::vector<ChunkRow>& chunks) override;
  Result<std::vector<ChunkRow>> ChunksOf(int64_t id) override;

  Result<std::unordered_set<std::string>> WithVectors(
      int64_t space_id, const std::vector<std::string>& hashes) override;
  Result<std::vector<ChunkToEmbed>> WithoutVectors(int64_t id, int64_t space_id) override;
  Result<int64_t> CountWithoutVectors(const std::vector<int64_t>& ids, int64_t space_id) override;
  Status PutVector(int64_t space_id, const std::string& content_hash,
                   std::span<const float> v) override;
  Result<int64_t> DropUnusedVectors() override;
  Status ForEachVector(const std::vector<int64_t>& ids, int64_t space_id, size_t dimension,
                       size_t max_vectors,
                       const std::function<void(int64_t, std::span<const float>)>& sink) override;
  Status ForEachVectorBlob(
      int64_t space_id,
      const std::function<void(const std::string&, std::string_view)>& sink) override;

  Result<ChunkTextTotals> TextTotalsOf(const std::vector<int64_t>& ids) override;
  Result<std::vector<ChunkTextMatch>> MatchText(const std::vector<std::string>& phrases,
                                                const std::vector<int64_t>& ids) override;
  Result<std::vector<ChunkRecord>> Chunks(const std::vector<int64_t>& rowids) override;
  Status RebuildLexicalIndex(const ChunkTermCounter& count) override;

 private:
  // The attachments the query (selecting kAttachmentColumns) returns.
  Result<std::vector<StoredAttachment>> ReadAttachments(const std::string& condition,
                                                        std::vector<PgParam> params);
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_CHUNK_STORE_H_
