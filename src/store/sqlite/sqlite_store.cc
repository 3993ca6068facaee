#include "src/store/sqlite/sqlite_store.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <string>
#include <system_error>
#include <utility>

#include "src/common/private_files.h"
#include "src/store/sqlite/fts5_engram.h"
#include "src/store/sqlite/schema.h"

namespace engram {
namespace {

// The full-text indexes of the schema.
constexpr const char* kFullTextIndexes[] = {"facts_fts", "context_chunks_fts"};

}  // namespace

Status SqliteStore::CreateDatabase(const SqliteStoreOptions& options) {
  namespace fs = std::filesystem;
  const std::string context = "store: create '" + options.path + "'";
  if (fs::path(options.path).has_parent_path()) {
    if (Status made = CreatePrivateDirectories(fs::path(options.path).parent_path().string());
        !made.ok()) {
      return made.WithContext(context);
    }
  }
  static std::atomic<uint64_t> counter{0};
  SqliteStoreOptions draft = options;
  draft.path = options.path + ".new-" + std::to_string(::getpid()) + "-" +
               std::to_string(counter.fetch_add(1));
  const auto remove_draft = [&] {
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
      std::remove((draft.path + suffix).c_str());
    }
  };
  Status built = CreatePrivateFile(draft.path);
  if (built.ok()) {
    // Closed at the end of this block: its WAL is folded in and removed.
    Result<std::unique_ptr<SqliteDb>> db = Connect(draft, /*create=*/true);
    built = db.ok() ? (*db)->Exec("PRAGMA journal_mode=WAL") : db.status();
    if (built.ok()) built = MigrateSchema(db->get()).status();
  }
  if (!built.ok()) {
    remove_draft();
    return built.WithContext(context);
  }
  // Linked into place, never over a file: a process that made the same
  // store meanwhile wins, and this draft is dropped.
  int placed = ::link(draft.path.c_str(), options.path.c_str());
  if (placed != 0 && errno != EEXIST) {
    placed =
        ::renameat2(AT_FDCWD, draft.path.c_str(), AT_FDCWD, options.path.c_str(), RENAME_NOREPLACE);
  }
  const int error = errno;
  remove_draft();
  if (placed != 0 && error != EEXIST) {
    return IOError(context + ": cannot move the new database into place: " + std::strerror(error));
  }
  return Status::OK();
}

Status SqliteStore::CheckDatabaseHeader(SqliteDb& db, const std::string& path) {
  sqlite3_file* file = nullptr;
  if (sqlite3_file_control(db.handle(), "main", SQLITE_FCNTL_FILE_POINTER, &file) != SQLITE_OK ||
      file == nullptr || file->pMethods == nullptr) {
    return Status::OK();  // nothing to read through: opening says what is wrong
  }
  char header[16] = {};
  static constexpr char kMagic[] = "SQLite format 3";  // and its NUL: 16 bytes
  // A file shorter than the header reads short (SQLITE_IOERR_SHORT_READ).
  if (file->pMethods->xRead(file, header, sizeof(header), 0) == SQLITE_OK &&
      std::memcmp(header, kMagic, sizeof(header)) == 0) {
    return Status::OK();
  }
  std::error_code ec;
  const uintmax_t bytes = std::filesystem::file_size(path, ec);  // a stat, no descriptor
  return Corruption("store: open '" + path +
                    "': " + (ec ? std::string("the file") : std::to_string(bytes) + " bytes") +
                    " without an SQLite header, so not a database engram made (an interrupted "
                    "copy or a truncation?); it is left as it is: restore it from a backup or "
                    "move it away to start an empty store");
}

Result<std::unique_ptr<SqliteDb>> SqliteStore::OpenConnection(const SqliteStoreOptions& options) {
  namespace fs = std::filesystem;
  const fs::path path(options.path);
  if (options.path.empty()) return InvalidArgument("store: open: empty database path");
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    return InvalidArgument("store: open '" + options.path +
                           "': is a directory, not a database file");
  }
  if (!fs::exists(path, ec)) {
    if (!options.create_if_missing) {
      return NotFound("store: open '" + options.path + "': no database there");
    }
    ENGRAM_RETURN_IF_ERROR(CreateDatabase(options));
  }
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, Connect(options, /*create=*/false));
  if (db->ReadOnly()) {
    // Read as it is: nothing to set, and no migration can be written.
    ENGRAM_ASSIGN_OR_RETURN(int64_t version, db->QueryInt("PRAGMA user_version"));
    if (version != kSchemaVersion) {
      return FailedPrecondition("store: open '" + options.path + "': read-only to this user, at " +
                                "schema " + std::to_string(version) + " where this build needs " +
                                std::to_string(kSchemaVersion) +
                                ": open it once with write access to migrate it");
    }
    return db;
  }
  {
    ENGRAM_ASSIGN_OR_RETURN(SqliteStatement wal, db->Prepare("PRAGMA journal_mode=WAL"));
    ENGRAM_RETURN_IF_ERROR(wal.Run());
  }
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA synchronous=NORMAL"));
  if (auto r = MigrateSchema(db.get()); !r.ok()) return r.status();
  return db;
}

Result<std::unique_ptr<SqliteStore>> SqliteStore::Open(const SqliteStoreOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, OpenConnection(options));
  std::shared_ptr<WalCheckpointer> checkpointer;
  if (!db->ReadOnly()) checkpointer = std::make_shared<WalCheckpointer>(options.path);
  return std::unique_ptr<SqliteStore>(
      new SqliteStore(options, std::move(checkpointer), std::move(db)));
}

SqliteStore::SqliteStore(SqliteStoreOptions options, std::shared_ptr<WalCheckpointer> checkpointer,
                         std::unique_ptr<SqliteDb> db)
    : options_(std::move(options)),
      checkpointer_(std::move(checkpointer)),
      db_(std::move(db)),
      facts_(db_.get()),
      vectors_(db_.get()),
      versions_(db_.get(), options_.keep_version_links),
      hypotheses_(db_.get()),
      chunks_(db_.get()) {
  if (checkpointer_) checkpointer_->Attach(db_->handle());
}

SqliteStore::~SqliteStore() {
  if (db_ && !db_->ReadOnly() && options_.keep_log_below_bytes > 0) {
    // A log of no frames is removed at close without a sync: left alone.
    std::error_code ec;
    const uintmax_t log_bytes = std::filesystem::file_size(options_.path + "-wal", ec);
    if (!ec && log_bytes > 0 && log_bytes < static_cast<uintmax_t>(options_.keep_log_below_bytes)) {
      sqlite3_db_config(db_->handle(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    }
  }
  // Closed first, with its hook: the checkpointer may go with this store.
  db_.reset();
}

Result<std::unique_ptr<Store>> SqliteStore::OpenReader() {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, Connect(options_, /*create=*/false));
  ENGRAM_RETURN_IF_ERROR(db->Exec("PRAGMA query_only=ON"));
  return std::unique_ptr<Store>(new SqliteStore(options_, nullptr, std::move(db)));
}

Result<std::unique_ptr<Store>> SqliteStore::OpenWriter() {
  SqliteStoreOptions options = options_;
  options.create_if_missing = false;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db, OpenConnection(options));
  return std::unique_ptr<Store>(new SqliteStore(std::move(options), checkpointer_, std::move(db)));
}

Result<std::unique_ptr<SqliteDb>> SqliteStore::Connect(const SqliteStoreOptions& options,
                                                       bool create) {
  // A file or directory its user cannot write is read as it is: SQLite
  // would otherwise fall back to reading it, fail to make the WAL's shared
  // memory file, and refuse every read.
  const std::string dir = std::filesystem::path(options.path).parent_path().string();
  const bool writable = create || (::access(options.path.c_str(), W_OK) == 0 &&
                                   ::access(dir.empty() ? "." : dir.c_str(), W_OK) == 0);
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<SqliteDb> db,
                          SqliteDb::Open(options.path, create     ? SqliteOpenMode::kCreate
                                                       : writable ? SqliteOpenMode::kReadWrite
                                                                  : SqliteOpenMode::kReadOnly));
  sqlite3_busy_timeout(db->handle(), options.busy_timeout_ms);
  if (!create) ENGRAM_RETURN_IF_ERROR(CheckDatabaseHeader(*db, options.path));
  // Reading the header first turns "not a database" and "unreadable" into
  // errors that name the file.
  if (auto r = db->QueryInt("PRAGMA schema_version"); !r.ok()) {
    return Status(r.status().code(),
                  "store: open '" + options.path + "': " + sqlite3_errmsg(db->handle()));
  }
  ENGRAM_RETURN_IF_ERROR(RegisterEngramFts5(db->handle()));
  ENGRAM_ASSIGN_OR_RETURN(
      SqliteStatement mmap,
      db->Prepare("PRAGMA mmap_size=" + std::to_string(std::max<int64_t>(options.mmap_bytes, 0))));
  ENGRAM_RETURN_IF_ERROR(mmap.Run());
  return db;
}

Status SqliteStore::Transact(const std::function<Status()>& body) {
  return RunInTransaction("BEGIN IMMEDIATE", body);
}

Status SqliteStore::ReadTransact(const std::function<Status()>& body) {
  return RunInTransaction("BEGIN DEFERRED", body);
}

Status SqliteStore::RunInTransaction(const char* begin, const std::function<Status()>& body) {
  return RunTransaction([this](const char* sql) { return db_->Exec(sql); }, begin, &in_transaction_,
                        body);
}

Result<std::string> SqliteStore::GetMeta(const std::string& key) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("SELECT value FROM engram_meta WHERE key = ?1"));
  s.BindText(1, key);
  ENGRAM_ASSIGN_OR_RETURN(bool found, s.Step());
  if (!found) return NotFound("store: no meta value '" + key + "'");
  return s.ColumnText(0);
}

Status SqliteStore::SetMeta(const std::string& key, const std::string& value) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s,
                          db_->Prepare("INSERT INTO engram_meta(key, value) VALUES (?1, ?2) "
                                       "ON CONFLICT(key) DO UPDATE SET value = excluded.value"));
  s.BindText(1, key);
  s.BindText(2, value);
  return s.Run();
}

Status SqliteStore::CheckIntegrity(std::vector<std::string>* problems,
                                   std::vector<std::string>* skipped) {
  {
    ENGRAM_ASSIGN_OR_RETURN(SqliteStatement s, db_->Prepare("PRAGMA integrity_check"));
    while (true) {
      ENGRAM_ASSIGN_OR_RETURN(const bool row, s.Step());
      if (!row) break;
      const std::string line = s.ColumnText(0);
      if (line != "ok") problems->push_back("sqlite: " + line);
    }
  }
  {
    // The totals BM25 reads, kept by triggers, against the facts they count.
    ENGRAM_ASSIGN_OR_RETURN(
        SqliteStatement s,
        db_->Prepare("SELECT scope FROM (SELECT scope, facts, content_terms, tags_terms, "
                     "portuguese_facts FROM scope_stats EXCEPT SELECT scope, count(*), "
                     "sum(content_terms), sum(tags_terms), sum(portuguese) FROM facts GROUP BY "
                     "scope) UNION SELECT scope FROM (SELECT scope, count(*), sum(content_terms), "
                     "sum(tags_terms), sum(portuguese) FROM facts GROUP BY scope EXCEPT SELECT "
                     "scope, facts, content_terms, tags_terms, portuguese_facts FROM scope_stats) "
                     "ORDER BY scope"));
    while (true) {
      ENGRAM_ASSIGN_OR_RETURN(const bool row, s.Step());
      if (!row) break;
      problems->push_back("scope_stats: the totals of scope '" + s.ColumnText(0) +
                          "' do not match its facts");
    }
  }
  for (const char* table : kFullTextIndexes) {
    const std::string t(table);
    // FTS5's own check of the index's structure (SQLite before 3.44 does
    // not compare an external-content index with its rows; the engine's
    // check of fact ids covers content that changed). It runs as a write.
    if (db_->ReadOnly()) {
      skipped->push_back("full-text index " + t +
                         ": not checked, the store is read-only to this user");
      continue;
    }
    std::string sql = "INSERT INTO " + t;
    sql += "(" + t + ") VALUES('integrity-check')";
    if (Status s = db_->Exec(sql); !s.ok()) {
      problems->push_back("full-text index " + t + ": " + s.message());
    }
  }
  return Status::OK();
}

std::optional<std::string> SqliteStore::TakeBackgroundProblem() {
  if (!checkpointer_) return std::nullopt;
  std::optional<std::string> problem = checkpointer_->TakeProblem();
  if (problem) *problem = "store log not checkpointed: " + *problem;
  return problem;
}

}  // namespace engram
