#include "src/store/postgres/pg_connection.h"

#include <libpq-fe.h>

#include <algorithm>
#include <charconv>
#include <string>
#include <system_error>
#include <vector>

#include "src/common/url_for_message.h"
#include "src/store/postgres/pq_api.h"

namespace engram {
namespace {

// The session settings every connection makes (see the header).
constexpr char kSessionSettings[] = "SET bytea_output = 'hex'; SET extra_float_digits = 1";

// Server notices ("relation already exists, skipping") are not errors and
// have no reader: dropped.
void DropNotice(void* /*unused*/, const char* /*message*/) {}

std::string Trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

// The Status of an error with `sqlstate` (may be empty) and `message`.
Status ErrorStatus(std::string_view sqlstate, const std::string& message) {
  const std::string text = "store: postgres: " + message +
                           (sqlstate.empty() ? "" : " (SQLSTATE " + std::string(sqlstate) + ")");
  const std::string_view error_class = sqlstate.substr(0, std::min<size_t>(2, sqlstate.size()));
  // Connection exceptions, a server shutting down or not accepting
  // connections yet, a transaction that lost a serialization race or a
  // deadlock: the same work may succeed when run again.
  if (error_class == "08" || sqlstate == "57P01" || sqlstate == "57P02" || sqlstate == "57P03" ||
      sqlstate == "40001" || sqlstate == "40P01") {
    return Unavailable(text);
  }
  if (sqlstate == "23505") return {StatusCode::kAlreadyExists, text};
  if (error_class == "22" || error_class == "23") return InvalidArgument(text);
  return IOError(text);
}

int HexDigit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

}  // namespace

bool IsPostgresUrl(std::string_view url) {
  return url.starts_with("postgresql://") || url.starts_with("postgres://");
}

PgParam PgParam::Text(std::string_view value) { return {Kind::kText, std::string(value)}; }

PgParam PgParam::Int(int64_t value) { return {Kind::kText, std::to_string(value)}; }

PgParam PgParam::Double(double value) {
  char buffer[32];
  const auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return {Kind::kText, std::string(buffer, error == std::errc() ? end : buffer)};
}

PgParam PgParam::Bytes(std::string_view value) { return {Kind::kBinary, std::string(value)}; }

PgParam PgParam::Null() { return {Kind::kNull, {}}; }

PgResult::PgResult(PgResult&& other) noexcept : api_(other.api_), result_(other.result_) {
  other.result_ = nullptr;
}

PgResult& PgResult::operator=(PgResult&& other) noexcept {
  if (this != &other) {
    if (result_ != nullptr) api_->clear(result_);
    api_ = other.api_;
    result_ = other.result_;
    other.result_ = nullptr;
  }
  return *this;
}

PgResult::~PgResult() {
  if (result_ != nullptr) api_->clear(result_);
}

int PgResult::Rows() const { return api_->ntuples(result_); }

int PgResult::Columns() const { return api_->nfields(result_); }

int64_t PgResult::AffectedRows() const {
  const std::string_view count = api_->cmd_tuples(result_);
  int64_t value = 0;
  std::from_chars(count.data(), count.data() + count.size(), value);
  return value;
}

bool PgResult::IsNull(int row, int column) const {
  return api_->getisnull(result_, row, column) != 0;
}

std::string_view PgResult::Text(int row, int column) const {
  return {api_->getvalue(result_, row, column),
          static_cast<size_t>(api_->getlength(result_, row, column))};
}

template <typename Number>
bool PgResult::Parse(int row, int column, Number* value) const {
  const std::string_view text = Text(row, column);
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), *value);
  return !IsNull(row, column) && error == std::errc() && end == text.data() + text.size();
}

Status PgResult::NotA(const char* what, int row, int column) const {
  const std::string shown =
      IsNull(row, column) ? "NULL" : "'" + std::string(Text(row, column)) + "'";
  return Internal("store: postgres: row " + std::to_string(row) + " column " +
                  std::to_string(column) + " holds " + shown + ", not " + what);
}

Result<int64_t> PgResult::Int(int row, int column) const {
  int64_t value = 0;
  if (!Parse(row, column, &value)) return NotA("an integer", row, column);
  return value;
}

Result<double> PgResult::Double(int row, int column) const {
  double value = 0;
  if (!Parse(row, column, &value)) return NotA("a number", row, column);
  return value;
}

Result<std::string> PgResult::Bytes(int row, int column) const {
  const std::string_view text = Text(row, column);
  if (IsNull(row, column) || !text.starts_with("\\x") || text.size() % 2 != 0) {
    return NotA("bytea in hex", row, column);
  }
  std::string bytes(text.size() / 2 - 1, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    const int high = HexDigit(text[2 + 2 * i]);
    const int low = HexDigit(text[3 + 2 * i]);
    if (high < 0 || low < 0) return NotA("bytea in hex", row, column);
    bytes[i] = static_cast<char>(high * 16 + low);
  }
  return bytes;
}

Result<std::unique_ptr<PgConnection>> PgConnection::Connect(const std::string& url,
                                                            const PgConnectOptions& options) {
  const std::string shown = UrlForMessage(url);
  if (!IsPostgresUrl(url)) {
    // Only a URL is shown: a libpq key=value string may hold a password.
    const std::string what =
        url.find("://") == std::string::npos ? "the value given" : "'" + shown + "'";
    return InvalidArgument("store: " + what +
                           " is not a PostgreSQL URL (postgresql://[user@]host[:port]/database)");
  }
  ENGRAM_ASSIGN_OR_RETURN(const PqApi* api, Pq());
  // Defaults first: libpq keeps the last value of a key word, and the URL
  // (expanded from dbname) comes after them.
  const std::string timeout = std::to_string(options.connect_timeout_seconds);
  const char* const keywords[] = {"connect_timeout", "application_name", "client_encoding",
                                  "dbname", nullptr};
  const char* const values[] = {timeout.c_str(), "engram", "UTF8", url.c_str(), nullptr};
  pg_conn* conn = api->connectdb_params(keywords, values, /*expand_dbname=*/1);
  if (conn == nullptr) return Internal("store: postgres: libpq could not allocate a connection");
  if (api->status(conn) != CONNECTION_OK) {
    const std::string reason = Trimmed(api->error_message(conn));
    api->finish(conn);
    return Unavailable("store: cannot connect to " + shown + ": " + reason);
  }
  api->set_notice_processor(conn, &DropNotice, nullptr);
  std::unique_ptr<PgConnection> connection(new PgConnection(api, conn, shown));
  ENGRAM_RETURN_IF_ERROR(connection->Exec(kSessionSettings));
  return connection;
}

PgConnection::~PgConnection() { api_->finish(conn_); }

bool PgConnection::Lost() const { return broken_ || api_->status(conn_) == CONNECTION_BAD; }

Result<PgResult> PgConnection::Finish(pg_result* raw) {
  PgResult result(api_, raw);
  const ExecStatusType status = raw == nullptr ? PGRES_FATAL_ERROR : api_->result_status(raw);
  if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) return result;
  const char* sqlstate = raw == nullptr ? nullptr : api_->result_error_field(raw, PG_DIAG_SQLSTATE);
  // The server's errors all carry an SQLSTATE; one without came from libpq
  // itself: the connection failed (or, rarer, memory ran out), and the
  // next statement goes to a new one.
  if (sqlstate == nullptr) broken_ = true;
  if (Lost()) {
    return Unavailable("store: postgres: lost the connection to " + shown_url_ + ": " +
                       Trimmed(api_->error_message(conn_)));
  }
  const char* primary = api_->result_error_field(raw, PG_DIAG_MESSAGE_PRIMARY);
  return ErrorStatus(sqlstate,
                     primary != nullptr ? primary : Trimmed(api_->result_error_message(raw)));
}

Status PgConnection::Exec(std::string_view sql) {
  const std::string text(sql);
  return Finish(api_->exec(conn_, text.c_str())).status();
}

Result<PgResult> PgConnection::Query(std::string_view sql, std::span<const PgParam> params) {
  std::string text(sql);
  std::vector<const char*> values(params.size());
  std::vector<int> lengths(params.size());
  std::vector<int> formats(params.size());
  for (size_t i = 0; i < params.size(); ++i) {
    values[i] = params[i].IsNull() ? nullptr : params[i].value().data();
    lengths[i] = static_cast<int>(params[i].value().size());
    formats[i] = params[i].IsBinary() ? 1 : 0;
  }
  const int count = static_cast<int>(params.size());
  auto prepared = prepared_.find(text);
  if (prepared == prepared_.end()) {
    if (prepared_.size() >= kMaxPrepared) {
      return Finish(api_->exec_params(conn_, text.c_str(), count, /*paramTypes=*/nullptr,
                                      values.data(), lengths.data(), formats.data(),
                                      /*resultFormat=*/0));
    }
    std::string name = "engram_" + std::to_string(prepared_.size() + 1);
    ENGRAM_RETURN_IF_ERROR(Finish(api_->prepare(conn_, name.c_str(), text.c_str(), count,
                                                /*paramTypes=*/nullptr))
                               .status());
    prepared = prepared_.emplace(std::move(text), std::move(name)).first;
  }
  return Finish(api_->exec_prepared(conn_, prepared->second.c_str(), count, values.data(),
                                    lengths.data(), formats.data(), /*resultFormat=*/0));
}

}  // namespace engram
