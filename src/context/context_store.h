// ContextStore: attachments, their files and chunks, the chunks' full-text
// index and their vectors, in the store's SQLite file (schema version 4).
//
// Chunks are keyed by the SHA-256 of their text (content_hash); vectors by
// (embedding space, content_hash), so equal text shares one vector across
// files and attachments. Vectors are float32 blobs of the space's
// dimension, L2-normalised by the caller. The FTS5 table follows
// context_chunks through triggers.
//
// Thread-safety: none; it shares its SqliteStore's connection, which the
// engine serialises. Mutations must run inside Store::Transact().
#ifndef ENGRAM_SRC_CONTEXT_CONTEXT_STORE_H_
#define ENGRAM_SRC_CONTEXT_CONTEXT_STORE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engram/context.h"
#include "engram/status.h"
#include "src/lexical/bm25.h"
#include "src/lexical/lexical_searcher.h"
#include "src/store/sqlite/sqlite_db.h"

namespace engram {

struct StoredAttachment {
  int64_t id = 0;
  Attachment info;       // files and chunks counted
  std::string chunking;  // ChunkingKey() of the chunks' settings
};

struct StoredFile {
  std::string path;
  uint64_t size = 0;
  int64_t mtime_ns = 0;
  std::string content_hash;  // SHA-256 hex of the file
};

struct ChunkRow {
  std::string path;
  int64_t start_line = 0;
  int64_t end_line = 0;
  std::string content_hash;  // SHA-256 hex of `text`
  std::string text;
  int64_t terms = 0;  // analysed length, for BM25
};

// A chunk text that needs a vector.
struct ChunkToEmbed {
  std::string content_hash;
  std::string text;
  std::string path;  // the file of (one of) the chunk(s) with that text
};

// A stored chunk as search reports it.
struct ChunkRecord {
  int64_t rowid = 0;
  std::string attachment;
  ChunkRow row;
};

// Chunks of the searched attachments that hold any query term, with what
// BM25 needs (one field: the text).
struct ChunkMatches {
  Bm25Collection collection;
  std::vector<int64_t> rowids;
  std::vector<Bm25Match> matches;
};

class ContextStore {
 public:
  explicit ContextStore(SqliteDb* db) : db_(db) {}

  // NotFound when no attachment has the name.
  Result<StoredAttachment> Find(const std::string& name);
  // Every attachment by name, with file and chunk counts.
  Result<std::vector<StoredAttachment>> List();
  // A new attachment's id; AlreadyExists when the name is taken.
  Result<int64_t> Create(const std::string& name, const std::vector<std::string>& roots,
                         const std::string& chunking, Timestamp now);
  // Records a refresh: its time and the chunker settings now in force.
  Status Touch(int64_t id, const std::string& chunking, Timestamp now);
  // Deletes the attachment with its files and chunks (triggers).
  Status Delete(int64_t id);

  Result<std::vector<StoredFile>> Files(int64_t id);
  // Inserts or replaces a file's row.
  Status PutFile(int64_t id, const StoredFile& file);
  // Deletes a file's row and its chunks.
  Status RemoveFile(int64_t id, const std::string& path);
  // Replaces the chunks of one file.
  Status ReplaceChunks(int64_t id, const std::string& path, const std::vector<ChunkRow>& chunks);

  // Those of `hashes` that have a vector in the space.
  Result<std::unordered_set<std::string>> WithVectors(int64_t space_id,
                                                      const std::vector<std::string>& hashes);
  // Chunks of the attachment without a vector in the space, in row order
  // (a text may come more than once).
  Result<std::vector<ChunkToEmbed>> WithoutVectors(int64_t id, int64_t space_id);
  // Chunks of the attachments without a vector in the space.
  Result<int64_t> CountWithoutVectors(const std::vector<int64_t>& ids, int64_t space_id);
  Status PutVector(int64_t space_id, const std::string& content_hash, std::span<const float> v);
  // Deletes vectors no chunk uses any more; returns how many.
  Result<int64_t> DropUnusedVectors();

  // Calls `sink` with each chunk of the attachments that has a vector in
  // the space; Corruption when a blob is not 1 to `max_vectors` vectors of
  // `dimension` floats (src/common/vector_blob.h).
  Status ForEachVector(const std::vector<int64_t>& ids, int64_t space_id, size_t dimension,
                       size_t max_vectors,
                       const std::function<void(int64_t, std::span<const float>)>& sink);
  // The chunks of the attachments that hold any of the query's terms.
  Result<ChunkMatches> Match(const std::vector<int64_t>& ids, const LexicalQuery& query);
  // The chunks at `rowids`, in that order; rows that are gone are skipped.
  Result<std::vector<ChunkRecord>> Chunks(const std::vector<int64_t>& rowids);

  // Recomputes every chunk's analysed length with `count` and rebuilds the
  // full-text index, for when the analyzer changed. Run inside Transact().
  Status RebuildLexicalIndex(const std::function<int64_t(std::string_view)>& count);

 private:
  SqliteDb* db_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_CONTEXT_CONTEXT_STORE_H_
