#include "src/store/sqlite/sqlite_db.h"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace engram {

Status SqliteError(sqlite3* db, std::string_view what) {
  const int code = db ? sqlite3_extended_errcode(db) : SQLITE_ERROR;
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
  std::string message = "store: " + std::string(what);
  if (file != nullptr && *file != '\0') message += " '" + std::string(file) + "'";
  message += ": ";
  message += db ? sqlite3_errmsg(db) : "no database";
  switch (code & 0xFF) {
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      return Unavailable(std::move(message));
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return Corruption(std::move(message));
    case SQLITE_CONSTRAINT:
    case SQLITE_MISMATCH:
    case SQLITE_TOOBIG:
      return InvalidArgument(std::move(message));
    default:
      return IOError(std::move(message));
  }
}

SqliteStatement::SqliteStatement(sqlite3_stmt* stmt, SqliteDb* owner, std::string sql)
    : stmt_(stmt), owner_(owner), sql_(std::move(sql)) {}

SqliteStatement::SqliteStatement(SqliteStatement&& other) noexcept
    : stmt_(std::exchange(other.stmt_, nullptr)),
      owner_(other.owner_),
      sql_(std::move(other.sql_)) {}

SqliteStatement& SqliteStatement::operator=(SqliteStatement&& other) noexcept {
  if (this != &other) {
    Release();
    stmt_ = std::exchange(other.stmt_, nullptr);
    owner_ = other.owner_;
    sql_ = std::move(other.sql_);
  }
  return *this;
}

SqliteStatement::~SqliteStatement() { Release(); }

void SqliteStatement::Release() {
  if (stmt_ == nullptr) return;
  owner_->Recycle(std::move(sql_), std::exchange(stmt_, nullptr));
}

void SqliteStatement::BindText(int index, std::string_view value) {
  sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()), SQLITE_TRANSIENT);
}
void SqliteStatement::BindInt(int index, int64_t value) { sqlite3_bind_int64(stmt_, index, value); }
void SqliteStatement::BindDouble(int index, double value) {
  sqlite3_bind_double(stmt_, index, value);
}
void SqliteStatement::BindNull(int index) { sqlite3_bind_null(stmt_, index); }
void SqliteStatement::BindInt(const char* name, int64_t value) {
  const int index = sqlite3_bind_parameter_index(stmt_, name);
  if (index > 0) sqlite3_bind_int64(stmt_, index, value);
}
void SqliteStatement::BindText(const char* name, std::string_view value) {
  const int index = sqlite3_bind_parameter_index(stmt_, name);
  if (index > 0) BindText(index, value);
}
void SqliteStatement::BindBlob(int index, const void* data, size_t size) {
  sqlite3_bind_blob64(stmt_, index, data, size, SQLITE_TRANSIENT);
}

Result<bool> SqliteStatement::Step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  Status s = SqliteError(owner_->handle(), "step");
  sqlite3_reset(stmt_);
  return s;
}

Status SqliteStatement::Run() {
  while (true) {
    ENGRAM_ASSIGN_OR_RETURN(bool row, Step());
    if (!row) break;
  }
  Reset();
  return Status::OK();
}

void SqliteStatement::Reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

int64_t SqliteStatement::ColumnInt(int index) const { return sqlite3_column_int64(stmt_, index); }
double SqliteStatement::ColumnDouble(int index) const {
  return sqlite3_column_double(stmt_, index);
}
std::string SqliteStatement::ColumnText(int index) const {
  const auto* p = sqlite3_column_text(stmt_, index);
  const int n = sqlite3_column_bytes(stmt_, index);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<size_t>(n)) : std::string();
}
std::string_view SqliteStatement::ColumnBlob(int index) const {
  const void* p = sqlite3_column_blob(stmt_, index);
  const int n = sqlite3_column_bytes(stmt_, index);
  return p ? std::string_view(static_cast<const char*>(p), static_cast<size_t>(n))
           : std::string_view();
}
bool SqliteStatement::ColumnIsNull(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

namespace {

// `path` as an SQLite URI filename with `query` (docs: uri.html): the
// characters a URI gives meaning to are escaped.
std::string FileUri(const std::string& path, const std::string& query) {
  std::string uri = "file:";
  for (const char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      static constexpr char kHex[] = "0123456789abcdef";
      uri += '%';
      uri += kHex[static_cast<unsigned char>(c) >> 4];
      uri += kHex[static_cast<unsigned char>(c) & 0xf];
    } else {
      uri += c;
    }
  }
  return uri + "?" + query;
}

}  // namespace

Result<std::unique_ptr<SqliteDb>> SqliteDb::Open(const std::string& path, SqliteOpenMode mode) {
  sqlite3* db = nullptr;
  std::string name = path;
  int flags = SQLITE_OPEN_NOMUTEX;
  switch (mode) {
    case SqliteOpenMode::kCreate:
      flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
      break;
    case SqliteOpenMode::kReadWrite:
      flags |= SQLITE_OPEN_READWRITE;
      break;
    case SqliteOpenMode::kReadOnly: {
      flags |= SQLITE_OPEN_READONLY | SQLITE_OPEN_URI;
      std::error_code ec;
      const bool logged = std::filesystem::exists(path + "-wal", ec);
      name = FileUri(path, logged ? "mode=ro" : "mode=ro&immutable=1");
      break;
    }
  }
  const int rc = sqlite3_open_v2(name.c_str(), &db, flags, nullptr);
  if (rc != SQLITE_OK) {
    std::string why = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
    sqlite3_close(db);
    return IOError("store: open '" + path + "': " + why);
  }
  sqlite3_extended_result_codes(db, 1);
  return std::unique_ptr<SqliteDb>(new SqliteDb(db, path));
}

bool SqliteDb::ReadOnly() const { return sqlite3_db_readonly(db_, "main") == 1; }

SqliteDb::~SqliteDb() {
  for (const auto& [sql, stmt] : idle_) sqlite3_finalize(stmt);
  sqlite3_close_v2(db_);
}

void SqliteDb::Recycle(std::string sql, sqlite3_stmt* stmt) {
  if (idle_.size() >= kMaxIdleStatements) {
    sqlite3_finalize(stmt);
    return;
  }
  sqlite3_reset(stmt);  // its error, if any, was reported by Step
  sqlite3_clear_bindings(stmt);
  idle_.emplace(std::move(sql), stmt);
}

Status SqliteDb::Exec(std::string_view sql) {
  char* err = nullptr;
  const std::string text(sql);
  if (sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
    Status s = SqliteError(db_, "exec");
    sqlite3_free(err);
    return s;
  }
  return Status::OK();
}

Result<SqliteStatement> SqliteDb::Prepare(std::string_view sql) {
  std::string text(sql);
  const auto idle = idle_.find(text);
  if (idle != idle_.end()) {
    sqlite3_stmt* stmt = idle->second;
    idle_.erase(idle);
    return SqliteStatement(stmt, this, std::move(text));
  }
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v3(db_, text.data(), static_cast<int>(text.size()), SQLITE_PREPARE_PERSISTENT,
                         &stmt, nullptr) != SQLITE_OK) {
    return SqliteError(db_, "prepare");
  }
  if (stmt == nullptr) return InvalidArgument("store: prepare: no statement in '" + text + "'");
  return SqliteStatement(stmt, this, std::move(text));
}

Result<int64_t> SqliteDb::QueryInt(std::string_view sql) {
  ENGRAM_ASSIGN_OR_RETURN(SqliteStatement stmt, Prepare(sql));
  ENGRAM_ASSIGN_OR_RETURN(bool row, stmt.Step());
  if (!row) return NotFound("store: query returned no row: " + std::string(sql));
  return stmt.ColumnInt(0);
}

int64_t SqliteDb::LastInsertRowid() const { return sqlite3_last_insert_rowid(db_); }
int64_t SqliteDb::Changes() const { return sqlite3_changes64(db_); }

std::string Placeholders(size_t n) {
  std::string out;
  for (size_t i = 0; i < n; ++i) out += i ? ",?" : "?";
  return out;
}

void BindTexts(SqliteStatement* s, int first, const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    s->BindText(first + static_cast<int>(i), values[i]);
  }
}

}  // namespace engram
