#include "src/store/postgres/pg_vector_store.h"

#include <string>
#include <utility>

#include "src/store/postgres/pg_lock_order.h"
#include "src/store/postgres/pg_query.h"

namespace engram {
namespace {

Result<VectorRef> ReadRef(const PgResult& r, int row) {
  VectorRef ref;
  ENGRAM_ASSIGN_OR_RETURN(ref.vector_id, r.Int(row, 0));
  ENGRAM_ASSIGN_OR_RETURN(ref.fact_rowid, r.Int(row, 1));
  return ref;
}

}  // namespace

Result<int64_t> PgVectorStore::FindSpace(const EmbeddingSpace& space) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT id FROM embedding_spaces WHERE provider = $1 AND model = $2 AND "
                 "dimension = $3",
                 {PgParam::Text(space.provider), PgParam::Text(space.model),
                  PgParam::Int(static_cast<int64_t>(space.dimension))}));
  if (r.Rows() == 0) return NotFound("store: no embedding space " + space.Key());
  return r.Int(0, 0);
}

Result<int64_t> PgVectorStore::EnsureSpace(const EmbeddingSpace& space, Timestamp now) {
  // Another server may make the same space meanwhile: whichever commits
  // first, both end with its id.
  ENGRAM_RETURN_IF_ERROR(
      db().Query("INSERT INTO embedding_spaces (provider, model, dimension, created_at) "
                 "VALUES ($1, $2, $3, $4) ON CONFLICT (provider, model, dimension) DO NOTHING",
                 {PgParam::Text(space.provider), PgParam::Text(space.model),
                  PgParam::Int(static_cast<int64_t>(space.dimension)), PgParam::Int(now)})
          .status());
  return FindSpace(space);
}

Result<std::vector<SpaceInfo>> PgVectorStore::Spaces() {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r, db().Query("SELECT s.id, s.provider, s.model, s.dimension, s.created_at, "
                                   "(SELECT count(*) FROM fact_vectors v WHERE v.space_id = s.id) "
                                   "FROM embedding_spaces s ORDER BY s.created_at, s.id"));
  std::vector<SpaceInfo> out;
  for (int i = 0; i < r.Rows(); ++i) {
    SpaceInfo info;
    ENGRAM_ASSIGN_OR_RETURN(info.id, r.Int(i, 0));
    info.space.provider = r.Text(i, 1);
    info.space.model = r.Text(i, 2);
    ENGRAM_ASSIGN_OR_RETURN(const int64_t dimension, r.Int(i, 3));
    info.space.dimension = static_cast<size_t>(dimension);
    ENGRAM_ASSIGN_OR_RETURN(info.created_at, r.Int(i, 4));
    ENGRAM_ASSIGN_OR_RETURN(info.vectors, r.Int(i, 5));
    out.push_back(std::move(info));
  }
  return out;
}

Result<bool> PgVectorStore::Put(int64_t space_id, const std::string& scope, int64_t fact_rowid,
                                const std::string& fact_id, std::span<const float> vector) {
  // The old vector goes by a DELETE of its own, counted by the trigger as
  // a removal; both statements act only while the row still holds the fact.
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {scope}));
  ENGRAM_RETURN_IF_ERROR(
      db().Query("DELETE FROM fact_vectors v USING facts f WHERE v.space_id = $1 AND "
                 "v.scope = $4 AND v.fact_label = $2 AND f.scope = $4 AND f.label = $2 AND "
                 "f.id = $3",
                 {PgParam::Int(space_id), PgParam::Int(fact_rowid), PgParam::Text(fact_id),
                  PgParam::Text(scope)})
          .status());
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("INSERT INTO fact_vectors (scope, space_id, fact_label, vector) "
                 "SELECT scope, $1, label, $4 FROM facts WHERE scope = $5 AND label = $2 AND "
                 "id = $3",
                 {PgParam::Int(space_id), PgParam::Int(fact_rowid), PgParam::Text(fact_id),
                  FloatsParam(vector), PgParam::Text(scope)}));
  return r.AffectedRows() > 0;
}

Result<std::vector<VectorRef>> PgVectorStore::Refs(int64_t space_id, const std::string& scope,
                                                   int64_t after) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT label, fact_label FROM fact_vectors WHERE space_id = $1 AND scope = $2 "
                 "AND label > $3 ORDER BY label",
                 {PgParam::Int(space_id), PgParam::Text(scope), PgParam::Int(after)}));
  std::vector<VectorRef> out;
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const VectorRef ref, ReadRef(r, i));
    out.push_back(ref);
  }
  refs_read_ += out.size();
  return out;
}

Result<std::vector<VectorsVersion>> PgVectorStore::Versions(
    int64_t space_id, const std::vector<std::string>& scopes) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT coalesce((SELECT max(v.label) FROM fact_vectors v WHERE v.space_id = $1 "
                 "AND v.scope = asked.scope), 0), coalesce(s.vectors_removed, 0), "
                 "coalesce((SELECT created_at FROM embedding_spaces WHERE id = $1), 0) FROM "
                 "unnest($2::text[]) WITH ORDINALITY AS asked(scope, i) "
                 "LEFT JOIN scope_stats s USING (scope) ORDER BY asked.i",
                 {PgParam::Int(space_id), TextArray(scopes)}));
  std::vector<VectorsVersion> out(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    VectorsVersion& version = out[static_cast<size_t>(i)];
    ENGRAM_ASSIGN_OR_RETURN(version.added, r.Int(i, 0));
    ENGRAM_ASSIGN_OR_RETURN(version.removed, r.Int(i, 1));
    ENGRAM_ASSIGN_OR_RETURN(version.space_created_at, r.Int(i, 2));
  }
  return out;
}

Status PgVectorStore::LoadScope(
    int64_t space_id, const std::string& scope, size_t dimension, size_t max_vectors,
    const std::function<void(const VectorRef&, std::span<const float>)>& sink) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT label, fact_label, vector FROM fact_vectors WHERE space_id = $1 AND "
                 "scope = $2",
                 {PgParam::Int(space_id), PgParam::Text(scope)}));
  std::vector<float> buffer;
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const VectorRef ref, ReadRef(r, i));
    ENGRAM_ASSIGN_OR_RETURN(const std::string blob, r.Bytes(i, 2));
    ENGRAM_RETURN_IF_ERROR(CopyVectorBlob(blob, ref.vector_id, dimension, max_vectors, &buffer));
    ++vectors_read_;
    sink(ref, buffer);
  }
  return Status::OK();
}

Result<int64_t> PgVectorStore::CountScope(int64_t space_id, const std::string& scope) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT count(*) FROM fact_vectors WHERE space_id = $1 AND scope = $2",
                 {PgParam::Int(space_id), PgParam::Text(scope)}));
  return r.Int(0, 0);
}

Status PgVectorStore::Load(const std::vector<int64_t>& vector_ids, size_t dimension,
                           size_t max_vectors,
                           const std::function<void(int64_t, std::span<const float>)>& sink) {
  if (vector_ids.empty()) return Status::OK();
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT v.label, v.vector FROM unnest($1::bigint[]) WITH ORDINALITY AS "
                 "asked(label, position) JOIN fact_vectors v USING (label) "
                 "ORDER BY asked.position",
                 {IntArray(vector_ids)}));
  std::vector<float> buffer(dimension);
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const int64_t id, r.Int(i, 0));
    ENGRAM_ASSIGN_OR_RETURN(const std::string blob, r.Bytes(i, 1));
    ENGRAM_RETURN_IF_ERROR(CopyVectorBlob(blob, id, dimension, max_vectors, &buffer));
    ++vectors_read_;
    sink(id, buffer);
  }
  return Status::OK();
}

Status PgVectorStore::ForEachBlob(int64_t space_id, const BlobSink& sink) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      db().Query("SELECT label, fact_label, vector, scope FROM fact_vectors WHERE space_id = $1",
                 {PgParam::Int(space_id)}));
  for (int i = 0; i < r.Rows(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN(const VectorRef ref, ReadRef(r, i));
    ENGRAM_ASSIGN_OR_RETURN(const std::string blob, r.Bytes(i, 2));
    sink(std::string(r.Text(i, 3)), ref, blob);
  }
  return Status::OK();
}

Status PgVectorStore::Delete(const std::string& scope, const std::vector<int64_t>& vector_ids) {
  if (vector_ids.empty()) return Status::OK();
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {scope}));
  return db()
      .Query("DELETE FROM fact_vectors WHERE scope = $1 AND label = ANY($2::bigint[])",
             {PgParam::Text(scope), IntArray(vector_ids)})
      .status();
}

Result<std::string> PgVectorStore::FactIdOf(const std::string& scope, int64_t fact_rowid) {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query("SELECT id FROM facts WHERE scope = $1 AND label = $2",
                                     {PgParam::Text(scope), PgParam::Int(fact_rowid)}));
  if (r.Rows() == 0) return NotFound("store: no fact at row " + std::to_string(fact_rowid));
  return std::string(r.Text(0, 0));
}

Result<std::vector<FactToEmbed>> PgVectorStore::Missing(int64_t space_id, size_t limit) {
  PgQuery q(
      "SELECT f.scope, f.label, f.id, f.content FROM facts f WHERE NOT EXISTS (SELECT 1 FROM "
      "fact_vectors v WHERE v.space_id = $1 AND v.scope = f.scope AND v.fact_label = f.label) "
      "ORDER BY f.label");
  q.Param(PgParam::Int(space_id));
  if (limit > 0) q += " LIMIT " + q.Param(PgParam::Int(static_cast<int64_t>(limit)));
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r, q.Run(db()));
  std::vector<FactToEmbed> out;
  out.reserve(static_cast<size_t>(r.Rows()));
  for (int i = 0; i < r.Rows(); ++i) {
    FactToEmbed f;
    f.scope = r.Text(i, 0);
    ENGRAM_ASSIGN_OR_RETURN(f.rowid, r.Int(i, 1));
    f.id = r.Text(i, 2);
    f.content = r.Text(i, 3);
    out.push_back(std::move(f));
  }
  return out;
}

Result<int64_t> PgVectorStore::CountMissing(int64_t space_id) {
  ENGRAM_ASSIGN_OR_RETURN(const PgResult r,
                          db().Query("SELECT (SELECT coalesce(sum(facts), 0) FROM scope_stats) - "
                                     "(SELECT count(*) FROM fact_vectors WHERE space_id = $1)",
                                     {PgParam::Int(space_id)}));
  return r.Int(0, 0);
}

Result<int64_t> PgVectorStore::PruneOtherSpaces(int64_t keep_space_id) {
  ENGRAM_RETURN_IF_ERROR(LockScopes(session(), {}));  // removals are counted per scope
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult vectors,
      db().Query("DELETE FROM fact_vectors WHERE space_id <> $1", {PgParam::Int(keep_space_id)}));
  ENGRAM_RETURN_IF_ERROR(
      db().Query("DELETE FROM embedding_spaces WHERE id <> $1", {PgParam::Int(keep_space_id)})
          .status());
  return vectors.AffectedRows();
}

}  // namespace engram
