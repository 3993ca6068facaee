// FactStore: the SQLite file that is the source of truth for facts and their
// full-text index (DESIGN §3).
//
// WAL mode; every mutation runs inside Transact(), so a crash or a failed
// step leaves the file as it was before. The store does no analysis of its
// own: callers pass the term counts the lexical index needs.
//
// Thread-safety: none. The engine serialises every call with a mutex.
#ifndef ENGRAM_SRC_STORE_FACT_STORE_H_
#define ENGRAM_SRC_STORE_FACT_STORE_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engram/engine.h"
#include "engram/fact.h"
#include "engram/status.h"
#include "src/store/sqlite_db.h"

namespace engram {

struct FactStoreOptions {
  std::string path;               // database file
  bool create_if_missing = true;  // create the file and its directory
  int busy_timeout_ms = 5000;     // wait for another process's write lock; default 5 s
  // Runs on the new connection before the schema is touched; registers the
  // FTS5 tokenizer the schema names.
  std::function<Status(sqlite3*)> on_connect;
};

// A fact as written, with the lengths (in analysed terms) of its content and
// tags that BM25 normalises by.
struct FactRow {
  Fact fact;
  int64_t content_terms = 0;
  int64_t tags_terms = 0;
};

struct StoredFact {
  int64_t rowid = 0;
  Fact fact;
};

class FactStore {
 public:
  static Result<std::unique_ptr<FactStore>> Open(const FactStoreOptions& options);

  // Runs `body` in one write transaction (BEGIN IMMEDIATE); commits when it
  // returns OK, rolls back otherwise.
  Status Transact(const std::function<Status()>& body);

  // Inserts `row`, or merges into the fact with the same scope and id: tags
  // are united, updated_at becomes the later of the two, everything else is
  // kept. Sets `*created`. Must run inside Transact().
  Result<Fact> Upsert(const FactRow& row, int64_t tags_terms_if_merged, bool* created);

  Result<StoredFact> Get(const std::string& scope, const std::string& id_or_prefix);
  Result<std::vector<Fact>> List(const ListOptions& options);
  Result<std::vector<StoredFact>> GetByRowids(const std::vector<int64_t>& rowids);

  // Deletions; each returns the number of facts removed. Run inside Transact().
  Result<int64_t> DeleteRowids(const std::vector<int64_t>& rowids);
  Result<int64_t> DeleteTag(const std::string& scope, const std::string& tag);
  Result<int64_t> DeleteScope(const std::string& scope);

  Status ForEach(const std::vector<std::string>& scopes,
                 const std::function<bool(const StoredFact&)>& sink);

  // Bumps access_count and sets last_accessed = now. Run inside Transact().
  Status RecordAccess(const std::vector<int64_t>& rowids, Timestamp now);

  Result<StoreStats> Stats();

  sqlite3* handle() const { return db_->handle(); }
  SqliteDb* db() const { return db_.get(); }

 private:
  explicit FactStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  std::unique_ptr<SqliteDb> db_;
  bool in_transaction_ = false;
};

// "?,?,?" with n placeholders, for IN lists.
std::string Placeholders(size_t n);

// Binds `scopes` as text to placeholders first, first + 1, ...
void BindScopes(SqliteStatement* s, int first, const std::vector<std::string>& scopes);

// `scopes`, or {"default"} when it is empty.
std::vector<std::string> ScopesOrDefault(const std::vector<std::string>& scopes);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_FACT_STORE_H_
