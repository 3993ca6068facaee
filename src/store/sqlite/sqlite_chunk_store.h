// SqliteChunkStore: ChunkStore on a SQLite connection (schema.cc's
// context_* tables, schema version 4). The FTS5 table context_chunks_fts
// (tokenizer `engram`, fts5_engram.h) follows context_chunks through
// triggers, as do the deletes that an attachment's or a space's delete
// brings.
//
// Thread-safety: none; it works on its SqliteStore's connection.
#ifndef ENGRAM_SRC_STORE_SQLITE_SQLITE_CHUNK_STORE_H_
#define ENGRAM_SRC_STORE_SQLITE_SQLITE_CHUNK_STORE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "src/store/chunk_store.h"
#include "src/store/sqlite/sqlite_db.h"

namespace engram {

class SqliteChunkStore final : public ChunkStore {
 public:
  explicit SqliteChunkStore(SqliteDb* db) : db_(db) {}

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
  SqliteDb* db_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SQLITE_CHUNK_STORE_H_
