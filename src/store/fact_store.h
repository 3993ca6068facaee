// FactStore: the SQLite file that is the source of truth for facts and their
// full-text index (DESIGN §3).
//
// WAL mode; every mutation runs inside Transact(), so a crash or a failed
// step leaves the file as it was before. The store does no analysis of its
// own: callers pass the term counts the lexical index needs.
//
// Thread-safety: none; one thread at a time per FactStore. The engine
// serialises calls on its store with a mutex; each ReaderPool connection is
// lent to one thread at a time.
#ifndef ENGRAM_SRC_STORE_FACT_STORE_H_
#define ENGRAM_SRC_STORE_FACT_STORE_H_

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engram/fact.h"
#include "engram/options.h"
#include "engram/status.h"
#include "src/store/sqlite_db.h"

namespace engram {

// Accesses of one fact by searches, merged: `count` of them, the latest at
// `last`. The row and the id together name the fact.
struct AccessCount {
  int64_t rowid = 0;
  std::string id;
  int64_t count = 0;
  Timestamp last = 0;
};

struct FactStoreOptions {
  std::string path;               // database file
  bool create_if_missing = true;  // create the file and its directory
  int busy_timeout_ms = 5000;     // wait for another process's write lock; default 5 s
  // Bytes of the file SQLite reads through a memory map rather than read
  // calls (PRAGMA mmap_size). Default 0, no map: a mapped file that another
  // process truncates kills the reader with SIGBUS, where read calls give
  // SQLITE_CORRUPT or an I/O error that a server answers and survives. A
  // map saves one copy per page read (docs/ARCHITECTURE.md measures it).
  int64_t mmap_bytes = 0;
};

// The collection statistics of some scopes' full-text index.
struct FullTextTotals {
  int64_t facts = 0;
  double content_terms = 0;      // summed over the facts
  double tags_terms = 0;         // the same, of tags
  int64_t portuguese_facts = 0;  // facts whose content is detected as Portuguese
};

// One fact the full-text index matched, with what ranking reads of it.
struct FullTextMatch {
  int64_t rowid = 0;
  std::string id;
  std::string scope;
  int64_t content_terms = 0;  // field lengths, in analysed terms
  int64_t tags_terms = 0;
  int64_t access_count = 0;
  Timestamp last_accessed = 0;
  Timestamp created_at = 0;
  // Occurrences of each phrase asked for, [phrase][field], fields content
  // then tags.
  std::vector<int32_t> tf;
};

// What the index records of a fact's text besides its terms: the lengths
// (in analysed terms) of its content and tags that BM25 normalises by, and
// whether its content is detected as Portuguese, counted per scope
// (scope_stats.portuguese_facts) so a search knows whether an English
// query's Portuguese forms can match anything.
struct FactTextCounts {
  int64_t content_terms = 0;
  int64_t tags_terms = 0;
  bool portuguese = false;
};

// A fact as written, with what the index records of its text.
struct FactRow {
  Fact fact;
  FactTextCounts text;
};

// What ranking needs of every fact of a scope when there is no query match.
struct RankInput {
  int64_t rowid = 0;
  std::string id;
  std::string scope;
  int64_t access_count = 0;
  Timestamp last_accessed = 0;
  Timestamp created_at = 0;  // orders versions of a thing
};

// Which facts a read sees: by default only current ones, neither
// superseded nor expired at `now`, narrowed by a FactFilter.
struct FactVisibility {
  Timestamp now = 0;
  bool include_superseded = false;
  bool include_expired = false;
  // Tags, kind, metadata and times (tags already normalised); as_of
  // replaces the two flags above with "current at that instant".
  FactFilter filter;

  // An SQL condition (" AND ...", or empty when everything is seen) on the
  // facts table under `alias`; it names the parameter :now, which
  // BindVisibility binds. SQLite gives :now the number after the highest
  // before it, so put the condition after every numbered parameter.
  std::string Condition(std::string_view alias) const;
};

// Binds :now and the filter's parameters of a FactVisibility condition.
void BindVisibility(SqliteStatement* s, const FactVisibility& visibility);

// What the index records of a fact's content and tags.
using TermCounter =
    std::function<FactTextCounts(const std::string& content, const std::vector<std::string>& tags)>;

struct StoredFact {
  int64_t rowid = 0;
  Fact fact;
};

class FactStore {
 public:
  static Result<std::unique_ptr<FactStore>> Open(const FactStoreOptions& options);
  // Another connection to the file of a store already opened with Open,
  // for reading only (PRAGMA query_only): it changes neither schema nor
  // data, and in WAL mode reads its own snapshot while a writer commits.
  // `create_if_missing` is ignored.
  static Result<std::unique_ptr<FactStore>> OpenReader(const FactStoreOptions& options);

  // Runs `body` in one write transaction (BEGIN IMMEDIATE); commits when it
  // returns OK, rolls back otherwise. Nested calls join the outer one.
  Status Transact(const std::function<Status()>& body);
  // Runs `body` in a read transaction: every read in it sees one snapshot.
  Status ReadTransact(const std::function<Status()>& body);

  // Inserts a new fact; (scope, id) must not exist. Run inside Transact().
  Status Insert(const FactRow& row);
  // Rewrites a fact's kind, source, confidence and metadata, as a merge that
  // brings new values does. Run inside Transact().
  Status UpdateDescription(int64_t rowid, const Fact& fact);
  // Rewrites a fact's tags (and their analysed length) and updated_at, as a
  // merge does. Run inside Transact().
  Status UpdateTags(int64_t rowid, const std::vector<std::string>& tags, Timestamp updated_at,
                    int64_t tags_terms);

  // Every fact of the scopes (default scope when empty) that `visibility`
  // sees, for recency ranking.
  Result<std::vector<RankInput>> RankInputs(const std::vector<std::string>& scopes,
                                            const FactVisibility& visibility = {});
  // The same for the facts at `rowids`, in order; rows that are gone or
  // not seen are skipped.
  Result<std::vector<RankInput>> RankInputsOf(const std::vector<int64_t>& rowids,
                                              const FactVisibility& visibility = {});
  // The scopes (default scope when empty) that hold no fact.
  Result<std::vector<std::string>> MissingScopes(const std::vector<std::string>& scopes);

  // Small key-value settings kept with the data (e.g. the analyzer version).
  Result<std::string> GetMeta(const std::string& key);
  Status SetMeta(const std::string& key, const std::string& value);

  // Recomputes what the index records of every fact with `count` and rebuilds the
  // FTS5 index from the facts, for when the analyzer changed. Run inside
  // Transact().
  Status RebuildLexicalIndex(const TermCounter& count);

  // The fact of `scope` that `id_or_prefix` (4 to 24 lower-case hex
  // characters) names. NotFound names the scopes that hold it, when others
  // do: that takes a scan of every fact, so it is for answering a person.
  Result<StoredFact> Get(const std::string& scope, const std::string& id_or_prefix);
  // The same, nullopt when the scope holds no such fact, without looking
  // anywhere else: for callers to whom absence is the usual outcome (an add
  // checking for the same fact).
  Result<std::optional<StoredFact>> Find(const std::string& scope, const std::string& id_or_prefix);
  Result<std::vector<Fact>> List(const ListOptions& options, const FactVisibility& visibility = {});
  Result<std::vector<StoredFact>> GetByRowids(const std::vector<int64_t>& rowids);

  // Deletions; each returns the number of facts removed. Run inside Transact().
  Result<int64_t> DeleteRowids(const std::vector<int64_t>& rowids);
  Result<int64_t> DeleteTag(const std::string& scope, const std::string& tag);
  Result<int64_t> DeleteScope(const std::string& scope);

  Status ForEach(const std::vector<std::string>& scopes,
                 const std::function<bool(const StoredFact&)>& sink);

  // Marks the fact at `rowid` as replaced by the fact `by_id` of its scope
  // from `valid_until` on; an empty `by_id` makes it current again. Run
  // inside Transact().
  Status SetSuperseded(int64_t rowid, const std::string& by_id, Timestamp valid_until);
  // Points every fact of `scope` that `from_id` superseded at `to_id`
  // instead (empty: current again, valid_until cleared). Returns how many.
  // Run inside Transact().
  Result<int64_t> MoveSupersession(const std::string& scope, const std::string& from_id,
                                   const std::string& to_id);
  // Every fact whose expires_at is set and not after `now`, by scope.
  Result<std::vector<StoredFact>> Expired(Timestamp now);
  // Facts of `scope` that `id` superseded directly.
  Result<std::vector<StoredFact>> SupersededBy(const std::string& scope, const std::string& id);

  // Adds each count to its fact's access_count and moves last_accessed
  // up to its time (never back); a count whose row no longer holds the
  // fact it names is skipped. Run inside Transact().
  Status RecordAccess(const std::vector<AccessCount>& counts);

  // The facts stored, per scope (by scope name), the schema version, and
  // where the store is.
  struct Counts {
    int64_t facts = 0;
    std::vector<std::pair<std::string, int64_t>> scopes;  // scope, fact count
    int schema_version = 0;
    std::string location;  // the database file
  };
  Result<Counts> CountFacts();

  // The full-text index (fact_store_full_text.cc).
  //
  // What BM25 needs of the facts of `scopes` (the default scope when
  // empty), every stored fact counted, seen or not.
  Result<FullTextTotals> FullTextTotalsOf(const std::vector<std::string>& scopes);
  // Every fact of `scopes` that `visibility` sees holding at least one of
  // `phrases` (analysed terms, as the index holds them), in content or,
  // unless `content_only`, in tags; unordered. Each match carries its
  // occurrences of every phrase per field.
  Result<std::vector<FullTextMatch>> MatchFullText(const std::vector<std::string>& phrases,
                                                   bool content_only,
                                                   const std::vector<std::string>& scopes,
                                                   const FactVisibility& visibility = {});
  // How many stored facts of `scope` hold `term` (analysed), in content or
  // tags.
  Result<int64_t> FactsHolding(const std::string& term, const std::string& scope);

  sqlite3* handle() const { return db_->handle(); }
  SqliteDb* db() const { return db_.get(); }

 private:
  explicit FactStore(std::unique_ptr<SqliteDb> db) : db_(std::move(db)) {}
  // Opens the connection and sets what every connection needs: busy
  // timeout, engram's FTS5 extensions (fts5_engram.h), the memory map.
  static Result<std::unique_ptr<SqliteDb>> Connect(const FactStoreOptions& options, bool create);
  // Makes a new, complete database at options.path: built 0600 under a
  // name of its own beside it, then linked into place, so no process ever
  // sees a half-made or empty file there. Of two processes creating one
  // store, both succeed and the first one's file stays.
  static Status CreateDatabase(const FactStoreOptions& options);
  // Corruption unless the file `db` has just opened starts with SQLite's
  // header: an empty or truncated file is refused, never taken for a new
  // store and rewritten. Read through SQLite's own handle of the file:
  // opening and closing a descriptor of our own would drop every POSIX lock
  // this process holds on the file (they belong to the process, not the
  // descriptor), among them the lock that tells another process closing the
  // store that this one still reads its WAL, which it would then remove.
  static Status CheckDatabaseHeader(SqliteDb& db, const std::string& path);
  Status RunInTransaction(const char* begin, const std::function<Status()>& body);
  std::unique_ptr<SqliteDb> db_;
  bool in_transaction_ = false;
};

// Tags as stored and as the full-text index reads them: a JSON array.
std::string EncodeTags(const std::vector<std::string>& tags);

// "?,?,?" with n placeholders, for IN lists.
std::string Placeholders(size_t n);

// Binds `scopes` as text to placeholders first, first + 1, ...
void BindScopes(SqliteStatement* s, int first, const std::vector<std::string>& scopes);

// `scopes`, or {"default"} when it is empty.
std::vector<std::string> ScopesOrDefault(const std::vector<std::string>& scopes);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_FACT_STORE_H_
