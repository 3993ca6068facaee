#include "src/store/postgres/pg_chunk_store.h"

#include <utility>

#include "src/store/postgres/pg_query.h"
#include "src/store/postgres/pg_term_index.h"
#include "src/store/vector_store.h"

namespace engram {
namespace {

constexpr char kAttachmentColumns[] =
    "a.id, a.name, a.roots, a.chunking, a.created_at, a.refreshed_at, "
    "(SELECT count(*) FROM context_files f WHERE f.attachment_id = a.id), "
    "(SELECT count(*) FROM context_chunks c WHERE c.attachment_id = a.id)";

// The chunk in columns `first`.. of `row`: path, start_line, end_line,
// content_hash, text, terms.
constexpr char kChunkColumns[] =
    "c.path, c.start_line, c.end_line, c.content_hash, c.text, c.terms";
Result<ChunkRow> ReadChunkRow(const PgResult& r, int row, int first) {
  ChunkRow c;
  c.path = r.Text(row, first);
  ENGRAM_ASSIGN_OR_RETURN(c.start_line, r.Int(row, first + 1));
  ENGRAM_ASSIGN_OR_RETURN(c.end_line, r.Int(row, first + 2));
  c.content_hash = r.Text(row, first + 3);
  c.text = r.Text(row, first + 4);
  ENGRAM_ASSIGN_OR_RETURN(c.terms, r.Int(row, first + 5));
  return c;
}

}  // namespace

Result<std::vector<StoredAttachment>> PgChunkStore::ReadAttachments(const std::string& condition,
                                                                    std::vector<PgParam> params) {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, db().Query(std::string("SELECT ") + kAttachmentColumns +
                                                           " FROM context_attachments a " +
                                                           condition + " ORDER BY a.name",
                                                       params));
  std::vector<StoredAttachment> out;
  for (int i = 0; i < r.Rows(); ++i) {
    StoredAttachment a;
    ENGRAM_ASSIGN_OR_RETURN(a.id, r.Int(i, 0));
    a.info.name = r.Text(i, 1);
    ENGRAM_ASSIGN_OR_RETURN(a.info.roots, DecodeRoots(std::string(r.Text(i, 2)), a.info.name));
    a.chunking = r.Text(i, 3);
    ENGRAM_ASSIGN_OR_RETURN(a.info.created_at, r.Int(i, 4));
    ENGRAM_ASSIGN_OR_RETURN(a.info.refreshed_at, r.Int(i, 5));
    ENGRAM_ASSIGN_OR_RETURN(const int64_t files, r.Int(i, 6));
    ENGRAM_ASSIGN_OR_RETURN(const int64_t chunks, r.Int(i, 7));
    a.info.files = static_cast<size_t>(files);
    a.info.chunks = static_cast<size_t>(chunks);
    out.push_back(std::move(a));
  }
  return out;
}

Result<StoredAttachment> PgChunkStore::Find(const std::string& name) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<StoredAttachment> found,
                          ReadAttachments("WHERE a.name = $1", {PgParam::Text(name)}));
  if (found.empty()) return NotFound("no attachment named '" + name + "'");
  return std::move(found[0]);
}

Result<std::vector<StoredAttachment>> PgChunkStore::List() { return ReadAttachments("", {}); }

Result<int64_t> PgChunkStore::Restore(const StoredAttachment& from) {
  // ON CONFLICT rather than a failed INSERT: the caller's transaction goes
  // on when the name is taken.
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("INSERT INTO context_attachments (name, roots, chunking, created_at, "
                 "refreshed_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (name) DO NOTHING "
                 "RETURNING id",
                 {PgParam::Text(from.info.name), PgParam::Text(EncodeRoots(from.info.roots)),
                  PgParam::Text(from.chunking), PgParam::Int(from.info.created_at),
                  PgParam::Int(from.info.refreshed_at)}));
  if (r.Rows() == 0) return AttachmentNameTaken(from.info.name);
  return r.Int(0, 0);
}

Status PgChunkStore::Touch(int64_t id, const std::string& chunking, Timestamp now) {
  return db()
      .Query("UPDATE context_attachments SET refreshed_at = $2, chunking = $3 WHERE id = $1",
             {PgParam::Int(id), PgParam::Int(now), PgParam::Text(chunking)})
      .status();
}

Status PgChunkStore::Delete(int64_t id) {
  return db().Query("DELETE FROM context_attachments WHERE id = $1", {PgParam::Int(id)}).status();
}

Result<std::vector<StoredFile>> PgChunkStore::Files(int64_t id) {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query("SELECT path, size, mtime, content_hash FROM context_files "
                                     "WHERE attachment_id = $1 ORDER BY path",
                                     {PgParam::Int(id)}));
  std::vector<StoredFile> out;
  for (int i = 0; i < r.Rows(); ++i) {
    StoredFile f;
    f.path = r.Text(i, 0);
    ENGRAM_ASSIGN_OR_RETURN(const int64_t size, r.Int(i, 1));
    f.size = static_cast<uint64_t>(size);
    ENGRAM_ASSIGN_OR_RETURN(f.mtime_ns, r.Int(i, 2));
    f.content_hash = r.Text(i, 3);
    out.push_back(std::move(f));
  }
  return out;
}

Status PgChunkStore::PutFile(int64_t id, const StoredFile& file) {
  return db()
      .Query(
          "INSERT INTO context_files (attachment_id, path, size, mtime, content_hash) "
          "VALUES ($1, $2, $3, $4, $5) ON CONFLICT (attachment_id, path) DO UPDATE SET "
          "size = excluded.size, mtime = excluded.mtime, content_hash = excluded.content_hash",
          {PgParam::Int(id), PgParam::Text(file.path),
           PgParam::Int(static_cast<int64_t>(file.size)), PgParam::Int(file.mtime_ns),
           PgParam::Text(file.content_hash)})
      .status();
}

Status PgChunkStore::RemoveFile(int64_t id, const std::string& path) {
  ENGRAM_RETURN_IF_ERROR(ReplaceChunks(id, path, {}));
  return db()
      .Query("DELETE FROM context_files WHERE attachment_id = $1 AND path = $2",
             {PgParam::Int(id), PgParam::Text(path)})
      .status();
}

Status PgChunkStore::ReplaceChunks(int64_t id, const std::string& path,
                                   const std::vector<ChunkRow>& chunks) {
  ENGRAM_RETURN_IF_ERROR(db().Query("DELETE FROM context_chunks WHERE attachment_id = $1 AND "
                                    "path = $2",
                                    {PgParam::Int(id), PgParam::Text(path)})
                             .status());
  for (const ChunkRow& c : chunks) {
    TermArrays arrays = TermArraysOf(c.text, "");
    ENGRAM_RETURN_IF_ERROR(
        db().Query("INSERT INTO context_chunks (attachment_id, path, start_line, end_line, "
                   "content_hash, text, terms, index_terms, index_tf) "
                   "VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
                   {PgParam::Int(id), PgParam::Text(path), PgParam::Int(c.start_line),
                    PgParam::Int(c.end_line), PgParam::Text(c.content_hash), PgParam::Text(c.text),
                    PgParam::Int(c.terms), std::move(arrays.terms), std::move(arrays.content_tf)})
            .status());
  }
  return Status::OK();
}

Result<std::vector<ChunkRow>> PgChunkStore::ChunksOf(int64_t id) {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query(std::string("SELECT ") + kChunkColumns +
                                         " FROM context_chunks c WHERE c.attachment_id = $1 "
                                         "ORDER BY c.path, c.id",
                                     {PgParam::Int(id)}));
  std::vector<ChunkRow> out;
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(ChunkRow c, ReadChunkRow(r, i, 0));
    out.push_back(std::move(c));
  }
  return out;
}

Result<std::unordered_set<std::string>> PgChunkStore::WithVectors(
    int64_t space_id, const std::vector<std::string>& hashes) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT content_hash FROM context_vectors WHERE space_id = $1 AND "
                 "content_hash = ANY($2::text[])",
                 {PgParam::Int(space_id), TextArray(hashes)}));
  std::unordered_set<std::string> out;
  for (int i = 0; i < r.Rows(); ++i) out.emplace(r.Text(i, 0));
  return out;
}

Result<std::vector<ChunkToEmbed>> PgChunkStore::WithoutVectors(int64_t id, int64_t space_id) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT c.content_hash, c.text, c.path FROM context_chunks c "
                 "WHERE c.attachment_id = $1 AND NOT EXISTS (SELECT 1 FROM context_vectors v "
                 "WHERE v.space_id = $2 AND v.content_hash = c.content_hash) ORDER BY c.id",
                 {PgParam::Int(id), PgParam::Int(space_id)}));
  std::vector<ChunkToEmbed> out;
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    out.push_back(
        {std::string(r.Text(i, 0)), std::string(r.Text(i, 1)), std::string(r.Text(i, 2))});
  }
  return out;
}

Result<int64_t> PgChunkStore::CountWithoutVectors(const std::vector<int64_t>& ids,
                                                  int64_t space_id) {
  if (ids.empty()) return 0;
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT count(*) FROM context_chunks c WHERE c.attachment_id = ANY($1::bigint[]) "
                 "AND NOT EXISTS (SELECT 1 FROM context_vectors v WHERE v.space_id = $2 AND "
                 "v.content_hash = c.content_hash)",
                 {IntArray(ids), PgParam::Int(space_id)}));
  return r.Int(0, 0);
}

Status PgChunkStore::PutVector(int64_t space_id, const std::string& content_hash,
                               std::span<const float> v) {
  return db()
      .Query(
          "INSERT INTO context_vectors (space_id, content_hash, vector) VALUES ($1, $2, $3) "
          "ON CONFLICT (space_id, content_hash) DO UPDATE SET vector = excluded.vector",
          {PgParam::Int(space_id), PgParam::Text(content_hash), FloatsParam(v)})
      .status();
}

Result<int64_t> PgChunkStore::DropUnusedVectors() {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("DELETE FROM context_vectors v WHERE NOT EXISTS (SELECT 1 FROM context_chunks c "
                 "WHERE c.content_hash = v.content_hash)"));
  return r.AffectedRows();
}

Status PgChunkStore::ForEachVector(
    const std::vector<int64_t>& ids, int64_t space_id, size_t dimension, size_t max_vectors,
    const std::function<void(int64_t, std::span<const float>)>& sink) {
  if (ids.empty()) return Status::OK();
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT c.id, v.vector FROM context_chunks c JOIN context_vectors v "
                 "ON v.space_id = $1 AND v.content_hash = c.content_hash "
                 "WHERE c.attachment_id = ANY($2::bigint[]) ORDER BY c.id",
                 {PgParam::Int(space_id), IntArray(ids)}));
  std::vector<float> v;
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t rowid, r.Int(i, 0));
    ENGRAM_ASSIGN_OR_RETURN(const std::string blob, r.Bytes(i, 1));
    ENGRAM_RETURN_IF_ERROR(CopyVectorBlob(blob, rowid, dimension, max_vectors, &v, "chunk"));
    sink(rowid, v);
  }
  return Status::OK();
}

Status PgChunkStore::ForEachVectorBlob(
    int64_t space_id, const std::function<void(const std::string&, std::string_view)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT content_hash, vector FROM context_vectors WHERE space_id = $1 "
                 "ORDER BY content_hash",
                 {PgParam::Int(space_id)}));
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const std::string blob, r.Bytes(i, 1));
    sink(std::string(r.Text(i, 0)), blob);
  }
  return Status::OK();
}

Result<ChunkTextTotals> PgChunkStore::TextTotalsOf(const std::vector<int64_t>& ids) {
  ChunkTextTotals totals;
  if (ids.empty()) return totals;
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query("SELECT count(*), coalesce(sum(terms), 0) FROM context_chunks "
                                     "WHERE attachment_id = ANY($1::bigint[])",
                                     {IntArray(ids)}));
  ENGRAM_ASSIGN_OR_RETURN(totals.chunks, r.Int(0, 0));
  ENGRAM_ASSIGN_OR_RETURN(totals.terms, r.Double(0, 1));
  return totals;
}

Result<std::vector<ChunkTextMatch>> PgChunkStore::MatchText(const std::vector<std::string>& phrases,
                                                            const std::vector<int64_t>& ids) {
  std::vector<ChunkTextMatch> out;
  if (ids.empty() || phrases.empty()) return out;
  PgQuery q(
      "SELECT c.id, c.terms, c.index_terms, c.index_tf FROM context_chunks c "
      "WHERE c.index_terms && $1::text[] AND c.attachment_id = ANY($2::bigint[])");
  q.Param(TextArray(phrases));
  q.Param(IntArray(ids));
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, RunOnTermIndex(db(), q));
  const PhraseCounter counter(phrases);
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    ChunkTextMatch m;
    ENGRAM_ASSIGN_OR_RETURN(m.rowid, r.Int(i, 0));
    ENGRAM_ASSIGN_OR_RETURN(m.terms, r.Int(i, 1));
    ENGRAM_ASSIGN_OR_RETURN(
        m.tf, counter.Count(r.Text(i, 2), {r.Text(i, 3)}, "chunk row " + std::to_string(m.rowid)));
    out.push_back(std::move(m));
  }
  return out;
}

Result<std::vector<ChunkRecord>> PgChunkStore::Chunks(const std::vector<int64_t>& rowids) {
  std::vector<ChunkRecord> out;
  if (rowids.empty()) return out;
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query(std::string("SELECT c.id, a.name, ") + kChunkColumns +
                     " FROM unnest($1::bigint[]) WITH ORDINALITY AS wanted(id, n) "
                     "JOIN context_chunks c ON c.id = wanted.id "
                     "JOIN context_attachments a ON a.id = c.attachment_id ORDER BY wanted.n",
                 {IntArray(rowids)}));
  for (int i = 0; i < r.Rows(); ++i) {
    ChunkRecord record;
    ENGRAM_ASSIGN_OR_RETURN(record.rowid, r.Int(i, 0));
    record.attachment = r.Text(i, 1);
    ENGRAM_ASSIGN_OR_RETURN(record.row, ReadChunkRow(r, i, 2));
    out.push_back(std::move(record));
  }
  return out;
}

Status PgChunkStore::RebuildLexicalIndex(const ChunkTermCounter& count) {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, db().Query("SELECT id, text FROM context_chunks"));
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t id, r.Int(i, 0));
    const std::string_view text = r.Text(i, 1);
    TermArrays arrays = TermArraysOf(text, "");
    ENGRAM_RETURN_IF_ERROR(
        db().Query("UPDATE context_chunks SET terms = $2, index_terms = $3, index_tf = $4 "
                   "WHERE id = $1",
                   {PgParam::Int(id), PgParam::Int(count(text)), std::move(arrays.terms),
                    std::move(arrays.content_tf)})
            .status());
  }
  return Status::OK();
}

}  // namespace engram
