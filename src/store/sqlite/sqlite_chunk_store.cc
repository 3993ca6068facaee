#include "src/store/sqlite/sqlite_chunk_store.h"

#include <utility>

#include "src/store/sqlite/fts5_engram.h"
#include "src/store/vector_store.h"

namespace engram {
namespace {

constexpr char kAttachmentColumns[] =
    "a.id, a.name, a.roots, a.chunking, a.created_at, a.refreshed_at, "
    "(SELECT count(*) FROM context_files f WHERE f.attachment_id = a.id), "
    "(SELECT count(*) FROM context_chunks c WHERE c.attachment_id = a.id)";

Result<StoredAttachment> ReadAttachment(const SqliteStatement& s) {
  StoredAttachment a;
  a.id = s.ColumnInt(0);
  a.info.name = s.ColumnText(1);
  ENGRAM_ASSIGN_OR_RETURN(a.info.roots, DecodeRoots(s.ColumnText(2), a.info.name));
  a.chunking = s.ColumnText(3);
  a.info.created_at = s.ColumnInt(4);
  a.info.refreshed_at = s.ColumnInt(5);
  a.info.files = static_cast<size_t>(s.ColumnInt(6));
  a.info.chunks = static_cast<size_t>(s.ColumnInt(7));
  return a;
}

// A chunk's columns, and the chunk read from them at column `first`.
constexpr char kChunkColumns[] =
    "c.path, c.start_line, c.end_line, c.content_hash, c.text, c.terms";
ChunkRow ReadChunkRow(const SqliteStatement& s, int first) {
  return {s.ColumnText(first),     s.ColumnInt(first + 1),  s.ColumnInt(first + 2),
          s.ColumnText(first + 3), s.ColumnText(first + 4), s.ColumnInt(first + 5)};
}

void BindIds(SqliteStatement* s, int first, const std::vector<int64_t>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) s->BindInt(first + static_cast<int>(i), ids[i]);
}

}  // namespace

Result<StoredAttachment> SqliteChunkStore::Find(const std::string& name) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare(std::string("SELECT ") + kAttachmentColumns +
                                       " FROM context_attachments a WHERE a.name = ?1"));
  s.BindText(1, name);
  ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound("no attachment named '" + name + "'");
  return ReadAttachment(s);
}

Result<std::vector<StoredAttachment>> SqliteChunkStore::List() {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare(std::string("SELECT ") + kAttachmentColumns +
                                       " FROM context_attachments a ORDER BY a.name"));
  std::vector<StoredAttachment> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    ENGRAM_ASSIGN_OR_RETURN(StoredAttachment a, ReadAttachment(s));
    out.push_back(std::move(a));
  }
  return out;
}

Result<int64_t> SqliteChunkStore::Restore(const StoredAttachment& from) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement exists,
                          db_->Prepare("SELECT 1 FROM context_attachments WHERE name = ?1"));
  exists.BindText(1, from.info.name);
  ENGRAM_ASSIGN_OR_RETURN(bool taken, exists.Step());
  if (taken) return AttachmentNameTaken(from.info.name);
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("INSERT INTO context_attachments(name, roots, chunking, created_at, "
                   "refreshed_at) VALUES (?1, ?2, ?3, ?4, ?5)"));
  s.BindText(1, from.info.name);
  s.BindText(2, EncodeRoots(from.info.roots));
  s.BindText(3, from.chunking);
  s.BindInt(4, from.info.created_at);
  s.BindInt(5, from.info.refreshed_at);
  ENGRAM_RETURN_IF_ERROR(s.Run());
  return db_->LastInsertRowid();
}

Status SqliteChunkStore::Touch(int64_t id, const std::string& chunking, Timestamp now) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(
          "UPDATE context_attachments SET refreshed_at = ?2, chunking = ?3 WHERE id = ?1"));
  s.BindInt(1, id);
  s.BindInt(2, now);
  s.BindText(3, chunking);
  return s.Run();
}

Status SqliteChunkStore::Delete(int64_t id) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("DELETE FROM context_attachments WHERE id = ?1"));
  s.BindInt(1, id);
  return s.Run();
}

Result<std::vector<StoredFile>> SqliteChunkStore::Files(int64_t id) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("SELECT path, size, mtime, content_hash FROM context_files "
                                       "WHERE attachment_id = ?1 ORDER BY path"));
  s.BindInt(1, id);
  std::vector<StoredFile> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(
        {s.ColumnText(0), static_cast<uint64_t>(s.ColumnInt(1)), s.ColumnInt(2), s.ColumnText(3)});
  }
  return out;
}

Status SqliteChunkStore::PutFile(int64_t id, const StoredFile& file) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("INSERT OR REPLACE INTO context_files(attachment_id, path, size, mtime, "
                   "content_hash) VALUES (?1, ?2, ?3, ?4, ?5)"));
  s.BindInt(1, id);
  s.BindText(2, file.path);
  s.BindInt(3, static_cast<int64_t>(file.size));
  s.BindInt(4, file.mtime_ns);
  s.BindText(5, file.content_hash);
  return s.Run();
}

Status SqliteChunkStore::RemoveFile(int64_t id, const std::string& path) {
  ENGRAM_RETURN_IF_ERROR(ReplaceChunks(id, path, {}));
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("DELETE FROM context_files WHERE attachment_id = ?1 AND path = ?2"));
  s.BindInt(1, id);
  s.BindText(2, path);
  return s.Run();
}

Status SqliteChunkStore::ReplaceChunks(int64_t id, const std::string& path,
                                       const std::vector<ChunkRow>& chunks) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement del,
      db_->Prepare("DELETE FROM context_chunks WHERE attachment_id = ?1 AND path = ?2"));
  del.BindInt(1, id);
  del.BindText(2, path);
  ENGRAM_RETURN_IF_ERROR(del.Run());
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement ins,
      db_->Prepare("INSERT INTO context_chunks(attachment_id, path, start_line, end_line, "
                   "content_hash, text, terms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"));
  for (const ChunkRow& c : chunks) {
    ins.BindInt(1, id);
    ins.BindText(2, path);
    ins.BindInt(3, c.start_line);
    ins.BindInt(4, c.end_line);
    ins.BindText(5, c.content_hash);
    ins.BindText(6, c.text);
    ins.BindInt(7, c.terms);
    ENGRAM_RETURN_IF_ERROR(ins.Run());
  }
  return Status::OK();
}

Result<std::vector<ChunkRow>> SqliteChunkStore::ChunksOf(int64_t id) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(std::string("SELECT ") + kChunkColumns +
                   " FROM context_chunks c WHERE c.attachment_id = ?1 ORDER BY c.path, c.rowid"));
  s.BindInt(1, id);
  std::vector<ChunkRow> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(ReadChunkRow(s, 0));
  }
  return out;
}

Result<std::unordered_set<std::string>> SqliteChunkStore::WithVectors(
    int64_t space_id, const std::vector<std::string>& hashes) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT 1 FROM context_vectors WHERE space_id = ?1 AND content_hash = ?2"));
  std::unordered_set<std::string> out;
  for (const std::string& hash : hashes) {
    s.BindInt(1, space_id);
    s.BindText(2, hash);
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) out.insert(hash);
    s.Reset();
  }
  return out;
}

Result<std::vector<ChunkToEmbed>> SqliteChunkStore::WithoutVectors(int64_t id, int64_t space_id) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT c.content_hash, c.text, c.path FROM context_chunks c "
                   "WHERE c.attachment_id = ?1 AND NOT EXISTS (SELECT 1 FROM context_vectors v "
                   "WHERE v.space_id = ?2 AND v.content_hash = c.content_hash) "
                   "ORDER BY c.rowid"));
  s.BindInt(1, id);
  s.BindInt(2, space_id);
  std::vector<ChunkToEmbed> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back({s.ColumnText(0), s.ColumnText(1), s.ColumnText(2)});
  }
  return out;
}

Result<int64_t> SqliteChunkStore::CountWithoutVectors(const std::vector<int64_t>& ids,
                                                      int64_t space_id) {
  if (ids.empty()) return 0;
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT count(*) FROM context_chunks c WHERE c.attachment_id IN (" +
                   Placeholders(ids.size()) +
                   ") AND NOT EXISTS (SELECT 1 FROM context_vectors v WHERE v.space_id = ?" +
                   std::to_string(ids.size() + 1) + " AND v.content_hash = c.content_hash)"));
  BindIds(&s, 1, ids);
  s.BindInt(static_cast<int>(ids.size()) + 1, space_id);
  ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
  return row ? s.ColumnInt(0) : 0;
}

Status SqliteChunkStore::PutVector(int64_t space_id, const std::string& content_hash,
                                   std::span<const float> v) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("INSERT OR REPLACE INTO context_vectors(space_id, content_hash, vector) "
                   "VALUES (?1, ?2, ?3)"));
  s.BindInt(1, space_id);
  s.BindText(2, content_hash);
  s.BindBlob(3, v.data(), v.size() * sizeof(float));
  return s.Run();
}

Result<int64_t> SqliteChunkStore::DropUnusedVectors() {
  ENGRAM_RETURN_IF_ERROR(
      db_->Exec("DELETE FROM context_vectors WHERE NOT EXISTS (SELECT 1 FROM context_chunks c "
                "WHERE c.content_hash = context_vectors.content_hash)"));
  return db_->Changes();
}

Status SqliteChunkStore::ForEachVector(
    const std::vector<int64_t>& ids, int64_t space_id, size_t dimension, size_t max_vectors,
    const std::function<void(int64_t, std::span<const float>)>& sink) {
  if (ids.empty()) return Status::OK();
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT c.rowid, v.vector FROM context_chunks c JOIN context_vectors v "
                   "ON v.space_id = ?1 AND v.content_hash = c.content_hash "
                   "WHERE c.attachment_id IN (" +
                   Placeholders(ids.size()) + ")"));
  s.BindInt(1, space_id);
  BindIds(&s, 2, ids);
  std::vector<float> v;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    ENGRAM_RETURN_IF_ERROR(
        CopyVectorBlob(s.ColumnBlob(1), s.ColumnInt(0), dimension, max_vectors, &v, "chunk"));
    sink(s.ColumnInt(0), v);
  }
  return Status::OK();
}

Status SqliteChunkStore::ForEachVectorBlob(
    int64_t space_id, const std::function<void(const std::string&, std::string_view)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT content_hash, vector FROM context_vectors WHERE space_id = ?1 "
                   "ORDER BY content_hash"));
  s.BindInt(1, space_id);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    sink(s.ColumnText(0), s.ColumnBlob(1));
  }
  return Status::OK();
}

Result<ChunkTextTotals> SqliteChunkStore::TextTotalsOf(const std::vector<int64_t>& ids) {
  ChunkTextTotals totals;
  if (ids.empty()) return totals;
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT count(*), total(terms) FROM context_chunks WHERE attachment_id IN (" +
                   Placeholders(ids.size()) + ")"));
  BindIds(&s, 1, ids);
  ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
  if (row) totals = {s.ColumnInt(0), s.ColumnDouble(1)};
  return totals;
}

Result<std::vector<ChunkTextMatch>> SqliteChunkStore::MatchText(
    const std::vector<std::string>& phrases, const std::vector<int64_t>& ids) {
  std::vector<ChunkTextMatch> out;
  if (ids.empty() || phrases.empty()) return out;
  // FTS5 as the outer loop, as the fact search does (sqlite_fact_store_full_text.cc).
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT c.rowid, engram_tf(context_chunks_fts), c.terms FROM "
                   "context_chunks_fts CROSS JOIN context_chunks c ON c.rowid = "
                   "context_chunks_fts.rowid WHERE context_chunks_fts MATCH ?1 AND "
                   "c.attachment_id IN (" +
                   Placeholders(ids.size()) + ")"));
  s.BindText(1, FtsMatchExpression(phrases, ""));
  BindIds(&s, 2, ids);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    ChunkTextMatch m;
    m.rowid = s.ColumnInt(0);
    ENGRAM_ASSIGN_OR_RETURN(m.tf, DecodeTermFrequencies(s.ColumnBlob(1), phrases.size(), 1));
    m.terms = s.ColumnInt(2);
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<ChunkRecord>> SqliteChunkStore::Chunks(const std::vector<int64_t>& rowids) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s, db_->Prepare(std::string("SELECT a.name, ") + kChunkColumns +
                                      " FROM context_chunks c JOIN context_attachments a ON a.id = "
                                      "c.attachment_id WHERE c.rowid = ?1"));
  std::vector<ChunkRecord> out;
  for (int64_t rowid : rowids) {
    s.BindInt(1, rowid);
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) {
      out.push_back({rowid, s.ColumnText(0), ReadChunkRow(s, 1)});
    }
    s.Reset();
  }
  return out;
}

Status SqliteChunkStore::RebuildLexicalIndex(const ChunkTermCounter& count) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement read,
                          db_->Prepare("SELECT rowid, text FROM context_chunks"));
  std::vector<std::pair<int64_t, int64_t>> terms;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, read.Step());
    if (!row) break;
    terms.emplace_back(read.ColumnInt(0), count(read.ColumnText(1)));
  }
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement update,
                          db_->Prepare("UPDATE context_chunks SET terms = ?2 WHERE rowid = ?1"));
  for (const auto& [rowid, n] : terms) {
    update.BindInt(1, rowid);
    update.BindInt(2, n);
    ENGRAM_RETURN_IF_ERROR(update.Run());
  }
  return db_->Exec("INSERT INTO context_chunks_fts(context_chunks_fts) VALUES ('rebuild')");
}

}  // namespace engram
