// Thin RAII wrappers over the SQLite C API: a connection and a prepared
// statement. Errors come back as Status with SQLite's message.
//
// A connection keeps the statements it prepared once they are done with:
// when a SqliteStatement goes, its statement is reset, its bindings cleared,
// and it waits in the connection for the next Prepare of the same SQL text,
// which then costs no parse. At most kMaxIdleStatements wait; more are
// finalised. A statement must not outlive its connection.
//
// Thread-safety: a SqliteDb is not thread-safe; callers serialise access
// (the engine holds a mutex around every use of its store).
#ifndef ENGRAM_SRC_STORE_SQLITE_SQLITE_DB_H_
#define ENGRAM_SRC_STORE_SQLITE_SQLITE_DB_H_

#include <sqlite3.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "engram/status.h"

namespace engram {

class SqliteDb;

class SqliteStatement {
 public:
  SqliteStatement() = default;
  // Takes `stmt`, which `owner` prepared from `sql`; it goes back to
  // `owner` at the end.
  SqliteStatement(sqlite3_stmt* stmt, SqliteDb* owner, std::string sql);
  SqliteStatement(SqliteStatement&& other) noexcept;
  SqliteStatement& operator=(SqliteStatement&& other) noexcept;
  SqliteStatement(const SqliteStatement&) = delete;
  SqliteStatement& operator=(const SqliteStatement&) = delete;
  ~SqliteStatement();

  // Binding; indexes start at 1 as in SQLite. Text is copied.
  void BindText(int index, std::string_view value);
  void BindInt(int index, int64_t value);
  void BindDouble(int index, double value);
  void BindNull(int index);
  // Binds a named parameter (":now"); does nothing when the SQL has none
  // of that name.
  void BindInt(const char* name, int64_t value);
  void BindText(const char* name, std::string_view value);
  // Binds `size` bytes at `data` as a blob (copied).
  void BindBlob(int index, const void* data, size_t size);

  // Steps once. Returns true when a row is ready, false when done.
  Result<bool> Step();
  // Steps to completion, for statements that return no rows.
  Status Run();
  // Resets for reuse and clears bindings.
  void Reset();

  int64_t ColumnInt(int index) const;
  double ColumnDouble(int index) const;
  std::string ColumnText(int index) const;
  std::string_view ColumnBlob(int index) const;
  bool ColumnIsNull(int index) const;

  sqlite3_stmt* get() const { return stmt_; }

 private:
  // Hands the statement back to its connection.
  void Release();

  sqlite3_stmt* stmt_ = nullptr;
  SqliteDb* owner_ = nullptr;
  std::string sql_;  // the text Prepare was given: the key it is kept under
};

// How SqliteDb::Open opens a file.
enum class SqliteOpenMode {
  kReadWrite,  // an existing database, to read and write
  kCreate,     // the same, created when missing
  // An existing database its user cannot write, read as it is on disk:
  // without a write-ahead log beside it, opened immutable (SQLite cannot
  // read a WAL-mode file whose -shm it cannot create otherwise, and there
  // is nothing in a log to read); with one, read-only through it.
  kReadOnly,
};

class SqliteDb {
 public:
  // Opens the database at `path` as `mode` says.
  static Result<std::unique_ptr<SqliteDb>> Open(const std::string& path, SqliteOpenMode mode);
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  // Idle statements a connection keeps for reuse, at most.
  static constexpr size_t kMaxIdleStatements = 64;

  // Runs one or more statements that return no rows.
  Status Exec(std::string_view sql);
  // The first statement of `sql`: an idle one prepared from the same text,
  // or a new one.
  Result<SqliteStatement> Prepare(std::string_view sql);
  // Runs a query whose first row's first column is an integer.
  Result<int64_t> QueryInt(std::string_view sql);

  // True when the connection cannot write (SqliteOpenMode::kReadOnly).
  bool ReadOnly() const;
  int64_t LastInsertRowid() const;
  int64_t Changes() const;
  sqlite3* handle() const { return db_; }
  const std::string& path() const { return path_; }
  // Statements waiting for reuse.
  size_t IdleStatements() const { return idle_.size(); }

 private:
  friend class SqliteStatement;

  SqliteDb(sqlite3* db, std::string path) : db_(db), path_(std::move(path)) {}
  // Takes back a statement prepared from `sql` that is done with: kept for
  // reuse, or finalised.
  void Recycle(std::string sql, sqlite3_stmt* stmt);

  sqlite3* db_;
  std::string path_;
  std::unordered_multimap<std::string, sqlite3_stmt*> idle_;  // by SQL text
};

// Builds "store: <what>: <sqlite message>" from the connection's last error.
Status SqliteError(sqlite3* db, std::string_view what);

// "?,?,?" with n placeholders, for IN lists.
std::string Placeholders(size_t n);

// Binds `values` as text to placeholders first, first + 1, ...
void BindTexts(SqliteStatement* s, int first, const std::vector<std::string>& values);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SQLITE_DB_H_
