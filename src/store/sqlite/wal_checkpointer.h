// WalCheckpointer: folds a database's write-ahead log back into the file on
// a thread of its own, so that no commit waits for it.
//
// By default SQLite checkpoints inside the commit that takes the log past
// 1,000 pages: that commit copies the pages and syncs both files before it
// returns. The engine commits under its lock, so every add and search would
// wait as long as the disk takes, which is hundreds of milliseconds while
// another large file (a saved HNSW graph) is being synced
// (docs/ARCHITECTURE.md, "Large scopes that stay live"). Attach replaces a
// connection's automatic checkpoints with a hook that only notes the log's
// size; once it reaches `pages`, the thread runs a PASSIVE checkpoint on
// its own connection, which neither waits for nor blocks readers and
// writers. A checkpoint that cannot finish (busy, or readers still on old
// pages, which keep the log from starting again) is tried again once the
// log has grown by `pages` more: SQLite's own hook would try after every
// commit from then on, syncing both files each time. Nothing is lost by a
// checkpoint that never runs: the log is part of the database, and SQLite
// folds it in when the last connection closes.
//
// The thread starts on the first due checkpoint, so a short-lived process
// that writes little starts none. The destructor ends it; the connections
// attached must be closed (or detached) before it runs.
//
// Thread-safety: every method may be called from any thread; the hook runs
// on whichever thread commits on an attached connection and only takes a
// small lock.
#ifndef ENGRAM_SRC_STORE_SQLITE_WAL_CHECKPOINTER_H_
#define ENGRAM_SRC_STORE_SQLITE_WAL_CHECKPOINTER_H_

#include <sqlite3.h>

#include <condition_variable>
#include <cstddef>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "engram/status.h"
#include "src/store/sqlite/sqlite_db.h"

namespace engram {

class WalCheckpointer {
 public:
  // Log pages at which a checkpoint is due: SQLite's own default
  // (SQLITE_DEFAULT_WAL_AUTOCHECKPOINT), about 4 MB of log.
  static constexpr int kDefaultPages = 1000;

  // Checkpoints the database at `path` (in WAL mode) when an attached
  // connection's log reaches `pages` (at least 1).
  explicit WalCheckpointer(std::string path, int pages = kDefaultPages);
  ~WalCheckpointer();
  WalCheckpointer(const WalCheckpointer&) = delete;
  WalCheckpointer& operator=(const WalCheckpointer&) = delete;

  // Installs the hook on `db`, a connection to the same file, in place of
  // its automatic checkpoints. The hook refers to this object.
  void Attach(sqlite3* db);

  // Checkpoints run (whether or not they could copy all of the log), and
  // the log's size in pages after the latest commit on an attached
  // connection.
  size_t Checkpoints() const;
  int LogPages() const;
  bool ThreadStarted() const;

  // The latest checkpoint's error, until taken; nullopt when none failed.
  // A busy log is no error.
  std::optional<std::string> TakeProblem();

 private:
  static int Hook(void* self, sqlite3* db, const char* schema, int pages);
  void Loop();
  // One PASSIVE checkpoint on the thread's connection, opened on first use.
  Status CheckpointOnce();

  const std::string path_;
  const int pages_;
  std::unique_ptr<SqliteDb> db_;  // the thread's own; used only by it

  mutable std::mutex mutex_;  // guards everything below
  std::condition_variable wake_;
  int log_pages_ = 0;
  int due_at_ = 0;  // the log's size when a checkpoint was last due
  bool due_ = false;
  bool stop_ = false;
  size_t checkpoints_ = 0;
  std::string problem_;
  std::thread thread_;  // started on the first due checkpoint
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_WAL_CHECKPOINTER_H_
