// The PostgreSQL store's schema (docs/ARCHITECTURE.md, "Stores:
// SQLite and PostgreSQL"), version kPgSchemaVersion.
//
// Tenants shard by scope: every table holding memories has `scope` first
// in its primary key, and the queries that select facts name their scopes, so
// the tables can be distributed by scope (Citus' create_distributed_table)
// or split across databases by scope. The exceptions are global reference
// tables: `engram_meta` (the schema version), `embedding_spaces` (which
// provider, model and dimension an id means), `hyde_hypotheses` (the
// HyDE cache: an LLM's answer to a query text, keyed as on SQLite by LLM,
// prompt version and query, whatever scopes the query searched) and the
// attached files' `context_*` tables (since version 3): an attachment
// belongs to the store, and every scope's searches may read it.
//
// Every statement on facts, vectors and version links names the scopes it
// concerns, lookups by label included (the engine passes the scopes a
// fact was found in with its label), so on a table distributed by scope
// each goes to those scopes' shards only. Background sweeps (the facts
// still without a vector, expired facts) read every scope.
//
// Labels (a fact's `label`, a vector's `label`) come from store-wide
// sequences and are never reused, as SQLite's AUTOINCREMENT rowids are not:
// a process that keeps vectors in memory tells new ones from old by label.
// Within a scope, vector labels are drawn in commit order (under the
// scope's row lock in scope_stats, since version 2), so a reader that has
// seen a scope's labels up to L finds all it has not seen above L;
// scope_stats also counts each scope's vectors removed, which with the
// scope's largest label tells a server whether its cache of the scope is
// current (VectorStore::Versions).
//
// The full-text index is engram's own analyser output, not PostgreSQL's:
// `terms` holds a fact's distinct index forms (content and tags, with the
// Portuguese forms of a Portuguese text), under a GIN index that finds the
// candidates; `content_tf` and `tags_tf` hold each form's count in content
// and in tags, in the same order, so BM25 reads exactly the term
// frequencies the SQLite store's FTS5 index gives. (A tsvector keeps at
// most 256 positions per lexeme and clamps positions at 16,383, so long
// texts would count differently.) `scope_stats` holds the per-scope totals
// BM25 needs, kept in the same transaction as every write.
//
// Thread-safety: a function over the caller's connection.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_SCHEMA_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_SCHEMA_H_

#include <cstdint>

#include "engram/status.h"
#include "src/store/postgres/pg_connection.h"

namespace engram {

// The version this build writes.
inline constexpr int kPgSchemaVersion = 3;

// The transaction-level advisory lock EnsurePgSchema holds while it checks
// and makes the schema; anything else that changes the schema takes it too.
// The bytes of "engram" as a number.
inline constexpr int64_t kPgSchemaLock = 0x656e6772616d;

// Creates the schema in the connection's database when it has none, or
// migrates an older one to `target` (kPgSchemaVersion; tests ask for older
// versions to migrate them), in one transaction, under an advisory lock so
// that servers starting together do it once. Returns the version found
// before (0: none). A database whose version is newer than kPgSchemaVersion
// is NotSupported, naming both versions: this build cannot read it safely.
// The server's errors as PgConnection gives them.
Result<int> EnsurePgSchema(PgConnection& db, int target = kPgSchemaVersion);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_SCHEMA_H_
