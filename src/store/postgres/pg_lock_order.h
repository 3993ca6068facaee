// The order in which a PostgreSQL store's writes take row locks, so that
// two writers never wait for each other in a cycle (PostgreSQL breaks one
// by failing a transaction with SQLSTATE 40P01, which a server answers
// with 503):
//
//   1. the scope_stats rows of the scopes written, by scope;
//   2. facts rows, by label;
//   3. fact_vectors rows.
//
// Every write of a scope's facts or vectors takes 1 first, once per
// transaction (LockScopes): an insert, whose trigger would take it after
// the new row; a delete, whose trigger counts it in scope_stats; a change
// of tags, which re-counts the totals; a change of a fact's description or
// of what supersedes it, which may come first in a transaction that
// reaches 1 later. A statement that locks several facts takes them by
// label (LockFacts). Without this an update (new version: 1, then the old
// fact: 2) and a forget of the same fact (2, then 1) deadlocked. Access
// counts lock facts only (2, by label), so searches' bookkeeping does not
// queue behind a scope's writes. A scope with no facts yet has no row to
// lock; its first writers meet at the row's insert instead.
//
// Thread-safety: functions over the caller's session, inside its
// transaction (the locks are held to its end).
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_LOCK_ORDER_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_LOCK_ORDER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/store/postgres/pg_connection.h"
#include "src/store/postgres/pg_session.h"

namespace engram {

// Step 1 for `scopes`, but those the session's transaction has locked
// already; every scope when `scopes` is empty. Outside a transaction it
// locks nothing that lasts, and remembers nothing.
Status LockScopes(PgSession& session, const std::vector<std::string>& scopes);
// Step 2 for the facts at `labels` of `scopes`, in the mode a delete needs
// when `to_delete`, else in the one an update of other columns than the
// key needs.
Status LockFacts(PgConnection& db, const std::vector<std::string>& scopes,
                 const std::vector<int64_t>& labels, bool to_delete);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_LOCK_ORDER_H_
