#include "src/store/postgres/pg_lock_order.h"

#include <utility>

#include "src/store/postgres/pg_query.h"

namespace engram {
namespace {

// Locks the scope_stats rows of the scopes `condition` (on the row's
// `scope`) selects, in scope order.
Status LockScopesWhere(PgConnection& db, const std::string& condition, PgParam param) {
  return db
      .Query("SELECT 1 FROM scope_stats WHERE " + condition + " ORDER BY scope FOR NO KEY UPDATE",
             {std::move(param)})
      .status();
}

}  // namespace

Status LockScopes(PgConnection& db, const std::vector<std::string>& scopes) {
  if (scopes.empty()) {
    return db.Exec("SELECT 1 FROM scope_stats ORDER BY scope FOR NO KEY UPDATE");
  }
  return LockScopesWhere(db, "scope = ANY($1::text[])", TextArray(scopes));
}

Status LockScopesOfFacts(PgConnection& db, const std::vector<int64_t>& labels) {
  if (labels.empty()) return Status::OK();
  return LockScopesWhere(db, "scope IN (SELECT scope FROM facts WHERE label = ANY($1::bigint[]))",
                         IntArray(labels));
}

Status LockScopesOfVectors(PgConnection& db, const std::vector<int64_t>& labels) {
  if (labels.empty()) return Status::OK();
  return LockScopesWhere(
      db, "scope IN (SELECT scope FROM fact_vectors WHERE label = ANY($1::bigint[]))",
      IntArray(labels));
}

Status LockFacts(PgConnection& db, const std::vector<int64_t>& labels, bool to_delete) {
  if (labels.empty()) return Status::OK();
  return db
      .Query(std::string("SELECT 1 FROM facts WHERE label = ANY($1::bigint[]) ORDER BY label ") +
                 (to_delete ? "FOR UPDATE" : "FOR NO KEY UPDATE"),
             {IntArray(labels)})
      .status();
}

}  // namespace engram
