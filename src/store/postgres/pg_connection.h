// A connection to a PostgreSQL server, with its results and errors in
// engram's terms. libpq is loaded on the first connection (pq_api.h).
//
// Values travel apart from the SQL text: a query names them $1, $2, ...
// and they are sent as parameters, never spliced into the text. A query is
// prepared on the server the first time its text is run and executed by
// name after that, so it is parsed and planned once per connection (at
// most kMaxPrepared texts; others run unprepared). Results
// come back in PostgreSQL's text format and are parsed here; a bytea
// parameter is sent in binary, a bytea column read from its hex form.
// Every connection sets bytea_output to hex and extra_float_digits to 1
// (shortest exact floats) whatever the server's defaults, so a double
// read back is the double written.
//
// Errors come back as Status naming the server's message and SQLSTATE. A
// lost connection, a server shutting down or refusing connections, a
// serialization failure and a deadlock are Unavailable: retryable, by
// running the whole transaction again (docs/ARCHITECTURE.md, "Stores").
// A unique violation is AlreadyExists; bad data (class 22) and the other
// integrity violations (class 23) are InvalidArgument; the rest IOError.
// A URL appears in messages only as UrlForMessage shows it: no user, no
// password, no options.
//
// Thread-safety: not thread-safe; one thread at a time per connection.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_CONNECTION_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_CONNECTION_H_

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "engram/status.h"

struct pg_conn;
struct pg_result;

namespace engram {

struct PqApi;

// One value bound to a query parameter.
class PgParam {
 public:
  // Sent as text; the server reads it as the parameter's type.
  static PgParam Text(std::string_view value);
  static PgParam Int(int64_t value);
  // The shortest text that reads back as `value`.
  static PgParam Double(double value);
  // Sent in binary, for a bytea parameter.
  static PgParam Bytes(std::string_view value);
  static PgParam Null();

  bool IsNull() const { return kind_ == Kind::kNull; }
  bool IsBinary() const { return kind_ == Kind::kBinary; }
  const std::string& value() const { return value_; }

 private:
  enum class Kind { kNull, kText, kBinary };
  PgParam(Kind kind, std::string value) : kind_(kind), value_(std::move(value)) {}

  Kind kind_;
  std::string value_;
};

// The rows a query returned. Movable, not copyable.
class PgResult {
 public:
  PgResult(PgResult&& other) noexcept;
  PgResult& operator=(PgResult&& other) noexcept;
  PgResult(const PgResult&) = delete;
  PgResult& operator=(const PgResult&) = delete;
  ~PgResult();

  int Rows() const;
  int Columns() const;
  // Rows an INSERT, UPDATE or DELETE touched; 0 for other commands.
  int64_t AffectedRows() const;

  bool IsNull(int row, int column) const;
  // The value as the server wrote it; empty for NULL.
  std::string_view Text(int row, int column) const;
  // The value read as a number, or bytea's bytes; Internal naming the row,
  // column and value when it is NULL or is not one.
  Result<int64_t> Int(int row, int column) const;
  Result<double> Double(int row, int column) const;
  Result<std::string> Bytes(int row, int column) const;

 private:
  friend class PgConnection;
  PgResult(const PqApi* api, pg_result* result) : api_(api), result_(result) {}
  // Reads the whole value at (row, column) as a Number; false when it is
  // NULL or is not one.
  template <typename Number>
  bool Parse(int row, int column, Number* value) const;
  Status NotA(const char* what, int row, int column) const;

  const PqApi* api_;
  pg_result* result_;
};

// How Connect connects.
struct PgConnectOptions {
  // Seconds to wait for the server before giving up; a URL's own
  // connect_timeout wins. Default 10.
  int connect_timeout_seconds = 10;
};

class PgConnection {
 public:
  // Connects to `url`, a postgresql:// (or postgres://) URL in libpq's
  // form, whose own parameters (host=, sslmode=, ...) win over the
  // defaults here. InvalidArgument when `url` is no such URL; Unavailable
  // when the server cannot be reached or refuses the connection, with
  // libpq's reason; Unavailable naming the package when libpq is missing.
  static Result<std::unique_ptr<PgConnection>> Connect(const std::string& url,
                                                       const PgConnectOptions& options = {});
  ~PgConnection();
  PgConnection(const PgConnection&) = delete;
  PgConnection& operator=(const PgConnection&) = delete;

  // Runs `sql`, one or more statements without parameters, discarding any
  // rows.
  Status Exec(std::string_view sql);
  // Statements a connection keeps prepared, at most.
  static constexpr size_t kMaxPrepared = 256;

  // Runs one statement with `params` as $1, $2, ...; its rows.
  Result<PgResult> Query(std::string_view sql, std::span<const PgParam> params = {});
  Result<PgResult> Query(std::string_view sql, std::initializer_list<PgParam> params) {
    return Query(sql, std::span<const PgParam>(params.begin(), params.size()));
  }

  // True once the connection is gone (the server closed it, or the
  // network failed): every call then fails with Unavailable. A statement
  // that failed without an SQLSTATE (an error of libpq's own, such as a
  // server that closed the socket without a word, which libpq does not
  // always mark as a bad connection) counts as one.
  bool Lost() const;
  // The URL as messages show it (UrlForMessage).
  const std::string& ShownUrl() const { return shown_url_; }

 private:
  PgConnection(const PqApi* api, pg_conn* conn, std::string shown_url)
      : api_(api), conn_(conn), shown_url_(std::move(shown_url)) {}
  // The Status of a finished `result` (taken over), or the result itself.
  Result<PgResult> Finish(pg_result* result);

  const PqApi* api_;
  pg_conn* conn_;
  std::string shown_url_;
  bool broken_ = false;  // a statement failed without an SQLSTATE
  // The name each prepared SQL text runs by.
  std::unordered_map<std::string, std::string> prepared_;
};

// Whether `url` names a PostgreSQL store (postgresql:// or postgres://).
bool IsPostgresUrl(std::string_view url);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_CONNECTION_H_
