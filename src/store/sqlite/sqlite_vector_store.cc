#include "src/store/sqlite/sqlite_vector_store.h"

#include <cstring>
#include <string>
#include <utility>

#include "src/common/vector_blob.h"

namespace engram {
namespace {

EmbeddingSpace ReadSpace(const SqliteStatement& s, int first) {
  EmbeddingSpace space;
  space.provider = s.ColumnText(first);
  space.model = s.ColumnText(first + 1);
  space.dimension = static_cast<size_t>(s.ColumnInt(first + 2));
  return space;
}

}  // namespace

Result<int64_t> SqliteVectorStore::FindSpace(const EmbeddingSpace& space) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT id FROM embedding_spaces WHERE provider = ?1 AND model = ?2 AND "
                   "dimension = ?3"));
  s.BindText(1, space.provider);
  s.BindText(2, space.model);
  s.BindInt(3, static_cast<int64_t>(space.dimension));
  ENGRAM_ASSIGN_OR_RETURN(bool found, s.Step());
  if (!found) return NotFound("store: no embedding space " + space.Key());
  return s.ColumnInt(0);
}

Result<int64_t> SqliteVectorStore::EnsureSpace(const EmbeddingSpace& space, Timestamp now) {
  auto found = FindSpace(space);
  if (found.ok() || found.status().code() != StatusCode::kNotFound) return found;
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("INSERT INTO embedding_spaces(provider, model, dimension, created_at) "
                   "VALUES (?1, ?2, ?3, ?4)"));
  s.BindText(1, space.provider);
  s.BindText(2, space.model);
  s.BindInt(3, static_cast<int64_t>(space.dimension));
  s.BindInt(4, now);
  ENGRAM_RETURN_IF_ERROR(s.Run());
  return db_->LastInsertRowid();
}

Result<std::vector<SpaceInfo>> SqliteVectorStore::Spaces() {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT s.id, s.provider, s.model, s.dimension, s.created_at, "
                   "(SELECT count(*) FROM fact_vectors v WHERE v.space_id = s.id) "
                   "FROM embedding_spaces s ORDER BY s.created_at, s.id"));
  std::vector<SpaceInfo> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    SpaceInfo info;
    info.id = s.ColumnInt(0);
    info.space = ReadSpace(s, 1);
    info.created_at = s.ColumnInt(4);
    info.vectors = s.ColumnInt(5);
    out.push_back(std::move(info));
  }
  return out;
}

Result<bool> SqliteVectorStore::Put(int64_t space_id, const std::string& scope, int64_t fact_rowid,
                                    const std::string& fact_id, std::span<const float> vector) {
  // A REPLACE would delete the old vector without firing the delete
  // trigger that counts removals, so the old one goes by a DELETE of its
  // own. Both statements act only while the row still holds the fact.
  const auto prepare = [&](const std::string& sql) -> Result<SqliteStatement> {
    ENGRAM_ASSIGN_OR_RETURN(
        SqliteStatement s,
        db_->Prepare(sql +
                     " EXISTS (SELECT 1 FROM facts WHERE rowid = ?2 AND id = ?3 AND scope = ?5)"));
    s.BindInt(1, space_id);
    s.BindInt(2, fact_rowid);
    s.BindText(3, fact_id);
    s.BindText(5, scope);
    return s;
  };
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement old_vector,
      prepare("DELETE FROM fact_vectors WHERE space_id = ?1 AND fact_rowid = ?2 AND"));
  ENGRAM_RETURN_IF_ERROR(old_vector.Run());
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      prepare("INSERT INTO fact_vectors(space_id, fact_rowid, vector) SELECT ?1, ?2, ?4 WHERE"));
  s.BindBlob(4, vector.data(), vector.size_bytes());
  ENGRAM_RETURN_IF_ERROR(s.Run());
  return db_->Changes() > 0;
}

Result<SqliteStatement> SqliteVectorStore::PrepareScopeQuery(std::string_view columns,
                                                             int64_t space_id,
                                                             const std::string& scope,
                                                             std::string_view tail) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("SELECT " + std::string(columns) +
                                       " FROM fact_vectors v JOIN facts f ON f.rowid = "
                                       "v.fact_rowid WHERE v.space_id = ?1 AND f.scope = ?2" +
                                       std::string(tail)));
  s.BindInt(1, space_id);
  s.BindText(2, scope);
  return s;
}

Result<std::vector<VectorRef>> SqliteVectorStore::Refs(int64_t space_id, const std::string& scope,
                                                       int64_t after) {
  // Every label: the space's index of (space, fact) covers the walk. Those
  // above `after`: a walk of the table's own rowid range from there (CROSS
  // JOIN keeps it outermost, `+` keeps the space's index out), which reads
  // only the new rows.
  Result<SqliteStatement> prepared =
      after == 0 ? PrepareScopeQuery("v.rowid, v.fact_rowid", space_id, scope, " ORDER BY v.rowid")
                 : db_->Prepare(
                       "SELECT v.rowid, v.fact_rowid FROM fact_vectors v CROSS JOIN facts f ON "
                       "f.rowid = v.fact_rowid WHERE v.rowid > ?3 AND +v.space_id = ?1 AND "
                       "f.scope = ?2 ORDER BY v.rowid");
  ENGRAM_RETURN_IF_ERROR(prepared.status());
  SqliteStatement s = std::move(*prepared);
  if (after != 0) {
    s.BindInt(1, space_id);
    s.BindText(2, scope);
    s.BindInt(3, after);
  }
  std::vector<VectorRef> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(VectorRef{s.ColumnInt(0), s.ColumnInt(1)});
  }
  refs_read_ += out.size();
  return out;
}

Result<std::vector<VectorsVersion>> SqliteVectorStore::Versions(
    int64_t space_id, const std::vector<std::string>& scopes) {
  VectorsVersion version;
  ENGRAM_ASSIGN_OR_RETURN(version.added, db_->QueryInt("PRAGMA data_version"));
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT vectors_removed, created_at FROM embedding_spaces WHERE id = ?1"));
  s.BindInt(1, space_id);
  ENGRAM_ASSIGN_OR_RETURN(bool found, s.Step());
  if (!found) return NotFound("store: no embedding space " + std::to_string(space_id));
  version.removed = s.ColumnInt(0);
  version.space_created_at = s.ColumnInt(1);
  return std::vector<VectorsVersion>(scopes.size(), version);
}

Status SqliteVectorStore::LoadScope(
    int64_t space_id, const std::string& scope, size_t dimension, size_t max_vectors,
    const std::function<void(const VectorRef&, std::span<const float>)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s, PrepareScopeQuery("v.rowid, v.fact_rowid, v.vector", space_id, scope, ""));
  std::vector<float> buffer;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    const VectorRef ref{s.ColumnInt(0), s.ColumnInt(1)};
    ENGRAM_RETURN_IF_ERROR(
        CopyVectorBlob(s.ColumnBlob(2), ref.vector_id, dimension, max_vectors, &buffer));
    ++vectors_read_;
    sink(ref, buffer);
  }
  return Status::OK();
}

Result<int64_t> SqliteVectorStore::CountScope(int64_t space_id, const std::string& scope) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s, PrepareScopeQuery("count(*)", space_id, scope, ""));
  ENGRAM_RETURN_IF_ERROR(s.Step().status());
  return s.ColumnInt(0);
}

Status SqliteVectorStore::Load(const std::vector<int64_t>& vector_ids, size_t dimension,
                               size_t max_vectors,
                               const std::function<void(int64_t, std::span<const float>)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("SELECT vector FROM fact_vectors WHERE rowid = ?1"));
  std::vector<float> buffer(dimension);
  for (int64_t id : vector_ids) {
    s.BindInt(1, id);
    ENGRAM_ASSIGN_OR_RETURN(bool found, s.Step());
    if (found) {
      ENGRAM_RETURN_IF_ERROR(CopyVectorBlob(s.ColumnBlob(0), id, dimension, max_vectors, &buffer));
      ++vectors_read_;
      sink(id, buffer);
    }
    s.Reset();
  }
  return Status::OK();
}

Status SqliteVectorStore::ForEachBlob(int64_t space_id, const BlobSink& sink) {
  // A vector of no fact (the file was changed past the triggers) has no
  // scope: "".
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT v.rowid, v.fact_rowid, v.vector, coalesce(f.scope, '') FROM "
                   "fact_vectors v LEFT JOIN facts f ON f.rowid = v.fact_rowid "
                   "WHERE v.space_id = ?1"));
  s.BindInt(1, space_id);
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) return Status::OK();
    sink(s.ColumnText(3), VectorRef{s.ColumnInt(0), s.ColumnInt(1)}, s.ColumnBlob(2));
  }
}

Status SqliteVectorStore::Delete(const std::string& scope, const std::vector<int64_t>& vector_ids) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("DELETE FROM fact_vectors WHERE rowid = ?1 AND coalesce((SELECT scope FROM "
                   "facts WHERE rowid = fact_vectors.fact_rowid), '') = ?2"));
  for (int64_t id : vector_ids) {
    s.BindInt(1, id);
    s.BindText(2, scope);
    ENGRAM_RETURN_IF_ERROR(s.Run());
    s.Reset();
  }
  return Status::OK();
}

Result<std::string> SqliteVectorStore::FactIdOf(const std::string& scope, int64_t fact_rowid) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("SELECT id FROM facts WHERE rowid = ?1 AND scope = ?2"));
  s.BindInt(1, fact_rowid);
  s.BindText(2, scope);
  ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
  if (!row) return NotFound("store: no fact at row " + std::to_string(fact_rowid));
  return s.ColumnText(0);
}

Result<std::vector<FactToEmbed>> SqliteVectorStore::Missing(int64_t space_id, size_t limit) {
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement s,
      db_->Prepare("SELECT f.scope, f.rowid, f.id, f.content FROM facts f WHERE NOT EXISTS "
                   "(SELECT 1 FROM fact_vectors v WHERE v.space_id = ?1 AND "
                   "v.fact_rowid = f.rowid) ORDER BY f.rowid LIMIT ?2"));
  s.BindInt(1, space_id);
  s.BindInt(2, limit == 0 ? -1 : static_cast<int64_t>(limit));
  std::vector<FactToEmbed> out;
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, s.Step());
    if (!row) break;
    out.push_back(FactToEmbed{s.ColumnText(0), s.ColumnInt(1), s.ColumnText(2), s.ColumnText(3)});
  }
  return out;
}

Result<int64_t> SqliteVectorStore::CountMissing(int64_t space_id) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("SELECT (SELECT count(*) FROM facts) - "
                                       "(SELECT count(*) FROM fact_vectors WHERE space_id = ?1)"));
  s.BindInt(1, space_id);
  ENGRAM_RETURN_IF_ERROR(s.Step().status());
  return s.ColumnInt(0);
}

Result<int64_t> SqliteVectorStore::PruneOtherSpaces(int64_t keep_space_id) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement vectors,
                          db_->Prepare("DELETE FROM fact_vectors WHERE space_id != ?1"));
  vectors.BindInt(1, keep_space_id);
  ENGRAM_RETURN_IF_ERROR(vectors.Run());
  const int64_t removed = db_->Changes();
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement spaces,
                          db_->Prepare("DELETE FROM embedding_spaces WHERE id != ?1"));
  spaces.BindInt(1, keep_space_id);
  ENGRAM_RETURN_IF_ERROR(spaces.Run());
  return removed;
}

}  // namespace engram
