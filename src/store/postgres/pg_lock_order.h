// The order in which a PostgreSQL store's writes take row locks, so that
// two writers never wait for each other in a cycle (PostgreSQL breaks one
// by failing a transaction with SQLSTATE 40P01, which a server answers
// with 503):
//
//   1. the scope_stats rows of the scopes written, by scope;
//   2. facts rows, by label;
//   3. fact_vectors rows.
//
// Inserting a fact or a vector takes 1 through its trigger before it locks
// anything else (pg_schema.cc). A write that would otherwise reach 1 only
// after 2 or 3 (a delete, whose trigger counts it in scope_stats; a tags
// change, which re-counts the scope's totals) takes 1 first with these
// functions, and a statement that locks several facts takes them by label
// first. Without it an update (new version: 1, then the old fact: 2) and a
// forget of the same fact (2, then 1) deadlocked.
//
// Thread-safety: functions over the caller's connection, inside the
// caller's transaction (the locks are held to its end).
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_LOCK_ORDER_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_LOCK_ORDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/store/postgres/pg_connection.h"

namespace engram {

// Step 1 for `scopes`; every scope when `scopes` is empty.
Status LockScopes(PgConnection& db, const std::vector<std::string>& scopes);
// Step 1 for the scopes of the facts at `labels`.
Status LockScopesOfFacts(PgConnection& db, const std::vector<int64_t>& labels);
// Step 1 for the scopes of the vectors at `labels`.
Status LockScopesOfVectors(PgConnection& db, const std::vector<int64_t>& labels);
// Step 2 for the facts at `labels`, in the mode a delete needs when
// `to_delete`, else in the one an update of other columns than the key
// needs.
Status LockFacts(PgConnection& db, const std::vector<int64_t>& labels, bool to_delete);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_LOCK_ORDER_H_
