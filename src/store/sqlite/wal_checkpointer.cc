#include "src/store/sqlite/wal_checkpointer.h"

#include <algorithm>
#include <system_error>
#include <utility>

namespace engram {

WalCheckpointer::WalCheckpointer(std::string path, int pages)
    : path_(std::move(path)), pages_(std::max(pages, 1)) {}

WalCheckpointer::~WalCheckpointer() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  wake_.notify_one();
  if (thread_.joinable()) thread_.join();
}

void WalCheckpointer::Attach(sqlite3* db) { sqlite3_wal_hook(db, &WalCheckpointer::Hook, this); }

int WalCheckpointer::Hook(void* self, sqlite3* db, const char* schema, int pages) {
  auto* me = static_cast<WalCheckpointer*>(self);
  {
    std::lock_guard lock(me->mutex_);
    me->log_pages_ = pages;
    // A log that readers keep from starting again only grows: it is due
    // again once it has grown by `pages` more, not after every commit.
    if (pages < me->due_at_) me->due_at_ = 0;  // it started again
    if (pages - me->due_at_ < me->pages_ || me->stop_) return SQLITE_OK;
    me->due_at_ = pages;
    me->due_ = true;
    if (me->thread_.joinable()) {
      me->wake_.notify_one();
      return SQLITE_OK;
    }
    try {
      me->thread_ = std::thread([me] { me->Loop(); });
      return SQLITE_OK;
    } catch (const std::system_error& e) {
      me->due_ = false;
      me->problem_ = std::string("no thread to checkpoint on (") + e.what() +
                     "); the commit checkpointed itself";
    }
  }
  // No thread: what SQLite would have done, in the committing thread.
  sqlite3_wal_checkpoint_v2(db, schema, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  return SQLITE_OK;
}

void WalCheckpointer::Loop() {
  std::unique_lock lock(mutex_);
  for (;;) {
    wake_.wait(lock, [this] { return stop_ || due_; });
    if (stop_) return;
    due_ = false;
    lock.unlock();
    const Status done = CheckpointOnce();
    lock.lock();
    if (!done.ok()) problem_ = done.message();
  }
}

Status WalCheckpointer::CheckpointOnce() {
  if (!db_) {
    ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                            SqliteDb::Open(path_, SqliteOpenMode::kReadWrite));
    // A connection that has read nothing has not opened the log yet, and
    // its checkpoints do nothing.
    ENGRAM_RETURN_IF_ERROR(db->QueryInt("PRAGMA schema_version").status());
    db_ = std::move(db);
  }
  const int rc =
      sqlite3_wal_checkpoint_v2(db_->handle(), "main", SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  // Busy: another connection is checkpointing; the next due commit retries.
  if (rc == SQLITE_BUSY) return Status::OK();
  if (rc != SQLITE_OK) return SqliteError(db_->handle(), "checkpoint '" + path_ + "'");
  std::lock_guard lock(mutex_);
  ++checkpoints_;
  return Status::OK();
}

size_t WalCheckpointer::Checkpoints() const {
  std::lock_guard lock(mutex_);
  return checkpoints_;
}

int WalCheckpointer::LogPages() const {
  std::lock_guard lock(mutex_);
  return log_pages_;
}

bool WalCheckpointer::ThreadStarted() const {
  std::lock_guard lock(mutex_);
  return thread_.joinable();
}

std::optional<std::string> WalCheckpointer::TakeProblem() {
  std::lock_guard lock(mutex_);
  if (problem_.empty()) return std::nullopt;
  return std::exchange(problem_, std::string());
}

}  // namespace engram
