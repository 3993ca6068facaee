#include "src/context/context_store.h"

#include <cstring>
#include <utility>

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"
#include "src/common/vector_blob.h"
#include "src/store/fact_store.h"
#include "src/store/sqlite/fts5_engram.h"

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
  const nlohmann::json roots = ParseJson(s.ColumnText(2), "").value_or(nullptr);
  if (!roots.is_array()) {
    return Corruption("context: attachment '" + a.info.name + "': roots are not a JSON array");
  }
  for (const auto& r : roots) {
    if (r.is_string()) a.info.roots.push_back(r.get<std::string>());
  }
  a.chunking = s.ColumnText(3);
  a.info.created_at = s.ColumnInt(4);
  a.info.refreshed_at = s.ColumnInt(5);
  a.info.files = static_cast<size_t>(s.ColumnInt(6));
  a.info.chunks = static_cast<size_t>(s.ColumnInt(7));
  return a;
}

void BindIds(SqliteStatement* s, int first, const std::vector<int64_t>& ids) {
  for (size_t i = 0; i < ids.size(); ++i) s->BindInt(first + static_cast<int>(i), ids[i]);
}

}  // namespace

Result<StoredAttachment> ContextStore::Find(const std::string& name) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare(std::string("SELECT ") + kAttachmentColumns +
                                       " FROM context_attachments a WHERE a.name = ?1"));
  s.BindText(1, name);
  ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound("no attachment named '" + name + "'");
  return ReadAttachment(s);
}

Result<std::vector<StoredAttachment>> ContextStore::List() {
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

Result<int64_t> ContextStore::Create(const std::string& name, const std::vector<std::string>& roots,
                                     const std::string& chunking, Timestamp now) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement exists,
                          db_->Prepare("SELECT 1 FROM context_attachments WHERE name = ?1"));
  exists.BindText(1, name);
  ENGRAM_ASSIGN_OR_RETURN(bool taken, exists.Step());
  if (taken) {
    return Status(StatusCode::kAlreadyExists, "an attachment named '" + name +
                                                  "' already exists (detach it, refresh it, "
                                                  "or choose another name)");
  }
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("INSERT INTO context_attachments(name, roots, chunking, created_at, "
                   "refreshed_at) VALUES (?1, ?2, ?3, ?4, ?4)"));
  s.BindText(1, name);
  s.BindText(2, nlohmann::json(roots).dump());
  s.BindText(3, chunking);
  s.BindInt(4, now);
  ENGRAM_RETURN_IF_ERROR(s.Run());
  return db_->LastInsertRowid();
}

Status ContextStore::Touch(int64_t id, const std::string& chunking, Timestamp now) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare(
          "UPDATE context_attachments SET refreshed_at = ?2, chunking = ?3 WHERE id = ?1"));
  s.BindInt(1, id);
  s.BindInt(2, now);
  s.BindText(3, chunking);
  return s.Run();
}

Status ContextStore::Delete(int64_t id) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("DELETE FROM context_attachments WHERE id = ?1"));
  s.BindInt(1, id);
  return s.Run();
}

Result<std::vector<StoredFile>> ContextStore::Files(int64_t id) {
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

Status ContextStore::PutFile(int64_t id, const StoredFile& file) {
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

Status ContextStore::RemoveFile(int64_t id, const std::string& path) {
  ENGRAM_RETURN_IF_ERROR(ReplaceChunks(id, path, {}));
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("DELETE FROM context_files WHERE attachment_id = ?1 AND path = ?2"));
  s.BindInt(1, id);
  s.BindText(2, path);
  return s.Run();
}

Status ContextStore::ReplaceChunks(int64_t id, const std::string& path,
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
    ins.Reset();
  }
  return Status::OK();
}

Result<std::unordered_set<std::string>> ContextStore::WithVectors(
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

Result<std::vector<ChunkToEmbed>> ContextStore::WithoutVectors(int64_t id, int64_t space_id) {
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

Result<int64_t> ContextStore::CountWithoutVectors(const std::vector<int64_t>& ids,
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

Status ContextStore::PutVector(int64_t space_id, const std::string& content_hash,
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

Result<int64_t> ContextStore::DropUnusedVectors() {
  ENGRAM_RETURN_IF_ERROR(
      db_->Exec("DELETE FROM context_vectors WHERE NOT EXISTS (SELECT 1 FROM context_chunks c "
                "WHERE c.content_hash = context_vectors.content_hash)"));
  return db_->Changes();
}

Status ContextStore::ForEachVector(
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
    const std::string_view blob = s.ColumnBlob(1);
    const size_t vectors = VectorsInBlob(blob.size(), dimension, max_vectors);
    if (vectors == 0) {
      return Corruption("context: chunk " + std::to_string(s.ColumnInt(0)) + ": vector of " +
                        std::to_string(blob.size()) + " bytes, expected " +
                        BlobSizeWanted(dimension, max_vectors));
    }
    v.resize(vectors * dimension);
    std::memcpy(v.data(), blob.data(), blob.size());
    sink(s.ColumnInt(0), v);
  }
  return Status::OK();
}

Result<ChunkMatches> ContextStore::Match(const std::vector<int64_t>& ids,
                                         const LexicalQuery& query) {
  ChunkMatches out;
  if (ids.empty() || query.terms.empty()) return out;
  const std::string in = "(" + Placeholders(ids.size()) + ")";
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement totals,
      db_->Prepare("SELECT count(*), total(terms) FROM context_chunks WHERE attachment_id IN " +
                   in));
  BindIds(&totals, 1, ids);
  ENGRAM_ASSIGN_OR_RETURN(bool has_row, totals.Step());
  const int64_t n_docs = has_row ? totals.ColumnInt(0) : 0;
  if (n_docs == 0) return out;
  out.collection = {n_docs, {totals.ColumnDouble(1) / static_cast<double>(n_docs)}, {1.0}};
  // FTS5 as the outer loop, as the fact search does (sqlite_fact_store_full_text.cc).
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT c.rowid, engram_tf(context_chunks_fts), c.terms FROM "
                   "context_chunks_fts CROSS JOIN context_chunks c ON c.rowid = "
                   "context_chunks_fts.rowid WHERE context_chunks_fts MATCH ?1 AND "
                   "c.attachment_id IN (" +
                   Placeholders(ids.size()) + ")"));
  const QueryPhrases phrases = PhrasesOf(query);
  s.BindText(1, FtsMatchExpression(phrases.phrases, ""));
  BindIds(&s, 2, ids);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    Bm25Match m;
    ENGRAM_ASSIGN_OR_RETURN(const std::vector<int32_t> by_phrase,
                            DecodeTermFrequencies(s.ColumnBlob(1), phrases.phrases.size(), 1));
    m.tf = FoldPhraseFrequencies(by_phrase, phrases, 1);
    m.field_len = {static_cast<double>(s.ColumnInt(2))};
    out.rowids.push_back(s.ColumnInt(0));
    out.matches.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<ChunkRecord>> ContextStore::Chunks(const std::vector<int64_t>& rowids) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT a.name, c.path, c.start_line, c.end_line, c.content_hash, c.text, "
                   "c.terms FROM context_chunks c JOIN context_attachments a ON a.id = "
                   "c.attachment_id WHERE c.rowid = ?1"));
  std::vector<ChunkRecord> out;
  for (int64_t rowid : rowids) {
    s.BindInt(1, rowid);
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (row) {
      out.push_back({rowid, s.ColumnText(0),
                     ChunkRow{s.ColumnText(1), s.ColumnInt(2), s.ColumnInt(3), s.ColumnText(4),
                              s.ColumnText(5), s.ColumnInt(6)}});
    }
    s.Reset();
  }
  return out;
}

Status ContextStore::RebuildLexicalIndex(const std::function<int64_t(std::string_view)>& count) {
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
    update.Reset();
  }
  return db_->Exec("INSERT INTO context_chunks_fts(context_chunks_fts) VALUES ('rebuild')");
}

}  // namespace engram
