// The store's schema and its forward migrations.
//
// The version lives in SQLite's `PRAGMA user_version`. Migration i takes a
// database from version i to i+1 and runs in its own transaction, so a crash
// mid-migration leaves the previous version intact. A database whose version
// is newer than kSchemaVersion is refused: this build cannot read it safely.
#ifndef ENGRAM_SRC_STORE_SQLITE_SCHEMA_H_
#define ENGRAM_SRC_STORE_SQLITE_SCHEMA_H_

#include "engram/status.h"
#include "src/store/sqlite/sqlite_db.h"

namespace engram {

// The version this build writes.
inline constexpr int kSchemaVersion = 10;

// Name of the FTS5 tokenizer the schema's full-text table uses. It must be
// registered on the connection before any statement touches `facts`.
inline constexpr char kFtsTokenizerName[] = "engram";

// The index of what ranking reads of a fact it finds by rowid (migration 8);
// a query that looks candidates up by rowid names it with INDEXED BY.
inline constexpr char kRankIndexName[] = "facts_rank";

// Every column of `facts` but `changed` (migration 10): an update of any
// of them is a change of the fact. A migration that adds a column to
// `facts` adds it here and recreates facts_changed_update.
inline constexpr char kFactColumnsButChanged[] =
    "id, scope, content, tags, kind, source, created_at, updated_at, last_accessed, "
    "access_count, confidence, metadata, content_terms, tags_terms, superseded_by, valid_until, "
    "expires_at, portuguese";

// Brings the database to kSchemaVersion. Returns the version found before.
Result<int> MigrateSchema(SqliteDb* db);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SCHEMA_H_
