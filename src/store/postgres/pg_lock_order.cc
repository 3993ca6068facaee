#include "src/store/postgres/pg_lock_order.h"

#include "src/store/postgres/pg_query.h"

namespace engram {

Status LockScopes(PgSession& session, const std::vector<std::string>& scopes) {
  PgConnection& db = session.Connection();
  const bool in_transaction = *session.TransactionFlag();
  std::set<std::string>& locked = session.LockedScopes();
  if (scopes.empty()) {
    ENGRAM_RETURN_IF_ERROR(db.Exec("SELECT 1 FROM scope_stats ORDER BY scope FOR NO KEY UPDATE"));
    // Scopes made later in the transaction are not in it: nothing to note.
    return Status::OK();
  }
  std::vector<std::string> wanted;
  for (const std::string& scope : scopes) {
    if (!in_transaction || locked.count(scope) == 0) wanted.push_back(scope);
  }
  if (wanted.empty()) return Status::OK();
  ENGRAM_RETURN_IF_ERROR(db.Query("SELECT 1 FROM scope_stats WHERE scope = ANY($1::text[]) "
                                  "ORDER BY scope FOR NO KEY UPDATE",
                                  {TextArray(wanted)})
                             .status());
  if (in_transaction) locked.insert(wanted.begin(), wanted.end());
  return Status::OK();
}

Status LockFacts(PgConnection& db, const std::vector<std::string>& scopes,
                 const std::vector<int64_t>& labels, bool to_delete) {
  if (labels.empty()) return Status::OK();
  return db
      .Query(std::string("SELECT 1 FROM facts WHERE scope = ANY($1::text[]) AND "
                         "label = ANY($2::bigint[]) ORDER BY label ") +
                 (to_delete ? "FOR UPDATE" : "FOR NO KEY UPDATE"),
             {TextArray(scopes), IntArray(labels)})
      .status();
}

}  // namespace engram
