// SqliteStore: a Store in one SQLite file (DESIGN §3): WAL mode, created
// private (0700 directory, 0600 files) and complete or not at all, migrated
// forward on open, read as it is when its user cannot write it.
//
// Every connection that writes has the write-ahead log folded back into the
// file on a thread of its own (wal_checkpointer.h), shared by the
// connections opened from one Open.
//
// Thread-safety: as Store.
#ifndef ENGRAM_SRC_STORE_SQLITE_SQLITE_STORE_H_
#define ENGRAM_SRC_STORE_SQLITE_SQLITE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/store/sqlite/sqlite_chunk_store.h"
#include "src/store/sqlite/sqlite_db.h"
#include "src/store/sqlite/sqlite_fact_store.h"
#include "src/store/sqlite/sqlite_hypothesis_store.h"
#include "src/store/sqlite/sqlite_vector_store.h"
#include "src/store/sqlite/sqlite_version_store.h"
#include "src/store/sqlite/wal_checkpointer.h"
#include "src/store/store.h"

namespace engram {

struct SqliteStoreOptions {
  std::string path;               // database file
  bool create_if_missing = true;  // create the file and its directory
  int busy_timeout_ms = 5000;     // wait for another process's write lock; default 5 s
  // Bytes of the file SQLite reads through a memory map rather than read
  // calls (PRAGMA mmap_size). Default 0, no map: a mapped file that another
  // process truncates kills the reader with SIGBUS, where read calls give
  // SQLITE_CORRUPT or an I/O error that a server answers and survives. A
  // map saves one copy per page read (docs/ARCHITECTURE.md measures it).
  int64_t mmap_bytes = 0;
  // A write-ahead log shorter than this many bytes when a connection closes is
  // left in place for the next connection, which reads it back (here about 0.2
  // ms of CPU per 256 KB), rather than folded into the file by the last
  // connection to close, which syncs both files (2 to 3 ms of wall time here).
  // The log is part of the database either way; what the choice gives up is
  // durability: commits left in the log are in the machine's page cache, not
  // on disk, until the next fold, so a crash of the machine (not of the
  // process) before it may lose them, and never tears the file. Only for
  // writes that may be lost so: a one-shot search's access counts. Default 0:
  // always folded, SQLite's behaviour.
  int64_t keep_log_below_bytes = 0;
  // Keep the store's version links in memory from one read transaction to
  // the next while nothing changes them (SqliteVersionStore), at most
  // kMaxKeptLinks of them, about 2 MB. Default true; false for a process
  // that searches once, which would read every link to use a few.
  bool keep_version_links = true;
};

class SqliteStore final : public Store {
 public:
  static Result<std::unique_ptr<SqliteStore>> Open(const SqliteStoreOptions& options);
  ~SqliteStore() override;
  SqliteStore(const SqliteStore&) = delete;
  SqliteStore& operator=(const SqliteStore&) = delete;

  // BEGIN IMMEDIATE: the write lock is taken at the start, so a
  // transaction never fails half-way for want of it.
  Status Transact(const std::function<Status()>& body) override;
  Status ReadTransact(const std::function<Status()>& body) override;
  // A connection with PRAGMA query_only; options.create_if_missing is
  // ignored.
  Result<std::unique_ptr<Store>> OpenReader() override;
  Result<std::unique_ptr<Store>> OpenWriter() override;

  FactStore& facts() override { return facts_; }
  VectorStore& vectors() override { return vectors_; }
  VersionStore& versions() override { return versions_; }
  HypothesisStore& hypotheses() override { return hypotheses_; }

  Result<std::string> GetMeta(const std::string& key) override;
  Status SetMeta(const std::string& key, const std::string& value) override;
  // PRAGMA integrity_check, the per-scope totals against the facts, and
  // FTS5's integrity-check of each full-text index (a write: skipped when
  // the file is read-only).
  Status CheckIntegrity(std::vector<std::string>* problems,
                        std::vector<std::string>* skipped) override;
  std::optional<std::string> TakeBackgroundProblem() override;
  bool ReadOnly() const override { return db_->ReadOnly(); }
  // The database file's path.
  std::string SidecarPrefix() const override { return db_->path(); }
  ChunkStore& chunks() override { return chunks_; }
  // The connection, for what only SQLite has (tests, PRAGMAs).
  SqliteDb* sqlite() { return db_.get(); }  // NOLINT(readability-identifier-naming): accessor

 private:
  SqliteStore(SqliteStoreOptions options, std::shared_ptr<WalCheckpointer> checkpointer,
              std::unique_ptr<SqliteDb> db);
  // Opens the connection and sets what every connection needs: busy
  // timeout, engram's FTS5 extensions (fts5_engram.h), the memory map.
  static Result<std::unique_ptr<SqliteDb>> Connect(const SqliteStoreOptions& options, bool create);
  // The connection of Open, migrated, without a checkpointer.
  static Result<std::unique_ptr<SqliteDb>> OpenConnection(const SqliteStoreOptions& options);
  // Makes a new, complete database at options.path: built 0600 under a
  // name of its own beside it, then linked into place, so no process ever
  // sees a half-made or empty file there. Of two processes creating one
  // store, both succeed and the first one's file stays.
  static Status CreateDatabase(const SqliteStoreOptions& options);
  // Corruption unless the file `db` has just opened starts with SQLite's
  // header: an empty or truncated file is refused, never taken for a new
  // store and rewritten. Read through SQLite's own handle of the file:
  // opening and closing a descriptor of our own would drop every POSIX lock
  // this process holds on the file (they belong to the process, not the
  // descriptor), among them the lock that tells another process closing the
  // store that this one still reads its WAL, which it would then remove.
  static Status CheckDatabaseHeader(SqliteDb& db, const std::string& path);
  Status RunInTransaction(const char* begin, const std::function<Status()>& body);

  const SqliteStoreOptions options_;
  // Shared with the other writing connections of one Open; declared before
  // the connection, so it outlives the hook the connection calls.
  std::shared_ptr<WalCheckpointer> checkpointer_;
  std::unique_ptr<SqliteDb> db_;
  SqliteFactStore facts_;
  SqliteVectorStore vectors_;
  SqliteVersionStore versions_;
  SqliteHypothesisStore hypotheses_;
  SqliteChunkStore chunks_;
  bool in_transaction_ = false;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SQLITE_STORE_H_
