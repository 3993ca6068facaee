// ChunkStore: attached files (include/engram/context.h) as a store keeps
// them: attachments, their files, the files' chunks with their full-text
// index, and the chunks' vectors. One implementation per backend
// (sqlite/sqlite_chunk_store.h, postgres/pg_chunk_store.h); ranking them is
// the retrieval core's (src/lexical, src/vindex, src/rank), as for facts.
//
// Chunks are keyed by the SHA-256 of their text (content_hash); vectors by
// (embedding space, content_hash), so equal text shares one vector across
// files and attachments. Vectors are float32 blobs of the space's
// dimension, L2-normalised by the caller. Deleting an attachment deletes
// its files and chunks; deleting a space deletes its chunk vectors.
// A chunk's row id is unique in the store and never names another chunk
// while this one exists.
//
// Attachments belong to the store, not to a scope: every scope's searches
// may read them.
//
// Thread-safety: none; it works on its Store's connection. Mutations must
// run inside Store::Transact().
#ifndef ENGRAM_SRC_STORE_CHUNK_STORE_H_
#define ENGRAM_SRC_STORE_CHUNK_STORE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "engram/context.h"
#include "engram/status.h"

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

// The collection statistics of some attachments' chunks.
struct ChunkTextTotals {
  int64_t chunks = 0;
  double terms = 0;  // analysed terms, summed over the chunks
};

// One chunk the full-text index matched.
struct ChunkTextMatch {
  int64_t rowid = 0;
  int64_t terms = 0;        // the chunk's analysed length
  std::vector<int32_t> tf;  // occurrences of each phrase asked for
};

// A chunk's analysed length (CountTerms, src/lexical), for a rebuild.
using ChunkTermCounter = std::function<int64_t(std::string_view)>;

class ChunkStore {
 public:
  virtual ~ChunkStore() = default;

  // Attachments.
  //
  // NotFound when no attachment has the name.
  virtual Result<StoredAttachment> Find(const std::string& name) = 0;
  // Every attachment by name, with file and chunk counts.
  virtual Result<std::vector<StoredAttachment>> List() = 0;
  // A new attachment's id, created and refreshed `now` (Restore);
  // AlreadyExists when the name is taken.
  Result<int64_t> Create(const std::string& name, const std::vector<std::string>& roots,
                         const std::string& chunking, Timestamp now);
  // Records a refresh: its time and the chunker settings now in force.
  virtual Status Touch(int64_t id, const std::string& chunking, Timestamp now) = 0;
  // Deletes the attachment with its files and chunks.
  virtual Status Delete(int64_t id) = 0;
  // An attachment exactly as `from` holds it, times included, under a new
  // id (a copy between stores); AlreadyExists when the name is taken.
  virtual Result<int64_t> Restore(const StoredAttachment& from) = 0;

  // Files and chunks.
  //
  // The attachment's files by path.
  virtual Result<std::vector<StoredFile>> Files(int64_t id) = 0;
  // Inserts or replaces a file's row.
  virtual Status PutFile(int64_t id, const StoredFile& file) = 0;
  // Deletes a file's row and its chunks.
  virtual Status RemoveFile(int64_t id, const std::string& path) = 0;
  // Replaces the chunks of one file.
  virtual Status ReplaceChunks(int64_t id, const std::string& path,
                               const std::vector<ChunkRow>& chunks) = 0;
  // Every chunk of the attachment by file, in the order it was written.
  virtual Result<std::vector<ChunkRow>> ChunksOf(int64_t id) = 0;

  // Vectors.
  //
  // Those of `hashes` that have a vector in the space.
  virtual Result<std::unordered_set<std::string>> WithVectors(
      int64_t space_id, const std::vector<std::string>& hashes) = 0;
  // Chunks of the attachment without a vector in the space, in row order
  // (a text may come more than once).
  virtual Result<std::vector<ChunkToEmbed>> WithoutVectors(int64_t id, int64_t space_id) = 0;
  // Chunks of the attachments without a vector in the space.
  virtual Result<int64_t> CountWithoutVectors(const std::vector<int64_t>& ids,
                                              int64_t space_id) = 0;
  virtual Status PutVector(int64_t space_id, const std::string& content_hash,
                           std::span<const float> v) = 0;
  // Deletes vectors no chunk uses any more; returns how many.
  virtual Result<int64_t> DropUnusedVectors() = 0;
  // Calls `sink` with each chunk of the attachments that has a vector in
  // the space; Corruption when a blob is not 1 to `max_vectors` vectors of
  // `dimension` floats (CopyVectorBlob, vector_store.h).
  virtual Status ForEachVector(
      const std::vector<int64_t>& ids, int64_t space_id, size_t dimension, size_t max_vectors,
      const std::function<void(int64_t, std::span<const float>)>& sink) = 0;
  // Every chunk vector of the space, as stored: content hash and blob.
  virtual Status ForEachVectorBlob(
      int64_t space_id, const std::function<void(const std::string&, std::string_view)>& sink) = 0;

  // The full-text index.
  //
  // What BM25 needs of the attachments' chunks.
  virtual Result<ChunkTextTotals> TextTotalsOf(const std::vector<int64_t>& ids) = 0;
  // Every chunk of the attachments holding at least one of `phrases`
  // (analysed terms, as the index holds them), unordered, with its
  // occurrences of each.
  virtual Result<std::vector<ChunkTextMatch>> MatchText(const std::vector<std::string>& phrases,
                                                        const std::vector<int64_t>& ids) = 0;
  // The chunks at `rowids`, in that order; rows that are gone are skipped.
  virtual Result<std::vector<ChunkRecord>> Chunks(const std::vector<int64_t>& rowids) = 0;
  // Recomputes every chunk's analysed length with `count` and rebuilds the
  // full-text index, for when the analyzer changed. Run inside Transact().
  virtual Status RebuildLexicalIndex(const ChunkTermCounter& count) = 0;
};

// An attachment's roots as stored: a JSON array of paths.
std::string EncodeRoots(const std::vector<std::string>& roots);
// The roots of EncodeRoots' text; Corruption, naming the attachment, when
// it is not a JSON array.
Result<std::vector<std::string>> DecodeRoots(const std::string& text,
                                             const std::string& attachment);

// ChunkStore::Create's and Restore's AlreadyExists for `name`.
Status AttachmentNameTaken(const std::string& name);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_CHUNK_STORE_H_
