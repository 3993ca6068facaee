#include "src/store/postgres/pg_session.h"

namespace engram {

PgConnection& PgSession::Connection() {
  if (connection_->Lost() && !in_transaction_) {
    Result<std::unique_ptr<PgConnection>> made = connect_();
    if (made.ok()) connection_ = std::move(*made);
  }
  return *connection_;
}

}  // namespace engram
