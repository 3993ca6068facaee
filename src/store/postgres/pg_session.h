// PgSession: the connection a PgStore and its parts share, made again when
// it is found lost between transactions. A statement that meets the loss
// fails with Unavailable; the next one outside a transaction reconnects
// first (and fails with Unavailable again while the server is away). A
// statement inside a transaction never reconnects: the transaction is gone
// with the connection, and its later statements must fail, not run on a
// new connection outside it.
//
// Thread-safety: none; one thread at a time, as its PgStore.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_SESSION_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_SESSION_H_

#include <functional>
#include <memory>
#include <set>
#include <string>
#include <utility>

#include "engram/status.h"
#include "src/store/postgres/pg_connection.h"

namespace engram {

class PgSession {
 public:
  using Connector = std::function<Result<std::unique_ptr<PgConnection>>()>;
  // `connection` is open; `connect` makes another like it.
  PgSession(std::unique_ptr<PgConnection> connection, Connector connect)
      : connection_(std::move(connection)), connect_(std::move(connect)) {}

  // The connection, made again first when it was lost and no transaction
  // is open. When that fails, the lost one is kept: its statements fail
  // with Unavailable.
  PgConnection& Connection();

  // True while a transaction is open on the connection: whoever opens one
  // sets it, as RunTransaction (store.h) does.
  bool* TransactionFlag() { return &in_transaction_; }
  // The scopes whose scope_stats row the open transaction has locked
  // (pg_lock_order.h), so each is locked once per transaction; whoever
  // opens a transaction empties it first.
  std::set<std::string>& LockedScopes() { return locked_scopes_; }

 private:
  std::unique_ptr<PgConnection> connection_;
  Connector connect_;
  bool in_transaction_ = false;
  std::set<std::string> locked_scopes_;
};

// What each part of a PgStore (its FactStore, VectorStore, ...) holds:
// the session its statements run on.
class PgPart {
 protected:
  explicit PgPart(PgSession* session) : session_(session) {}
  // The session's connection (PgSession::Connection).
  PgConnection& db() const {  // NOLINT(readability-identifier-naming): accessor
    return session_->Connection();
  }
  PgSession& session() const {  // NOLINT(readability-identifier-naming): accessor
    return *session_;
  }

 private:
  PgSession* session_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_SESSION_H_
