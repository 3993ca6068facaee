// PgStore: a Store in a PostgreSQL database (docs/ARCHITECTURE.md,
// "Stores"), named by a postgresql:// URL. Many processes on many hosts
// may share one database: each write is one transaction, and each read
// transaction one snapshot (REPEATABLE READ).
//
// The schema (pg_schema.h) is created on first open. A connection that was
// lost is made again by the next statement outside a transaction, or when
// the next transaction starts (pg_session.h); the call that met the loss
// fails with Unavailable, and nothing half-written stays.
//
// Thread-safety: as Store.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_STORE_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/store/postgres/pg_chunk_store.h"
#include "src/store/postgres/pg_connection.h"
#include "src/store/postgres/pg_fact_store.h"
#include "src/store/postgres/pg_hypothesis_store.h"
#include "src/store/postgres/pg_session.h"
#include "src/store/postgres/pg_vector_store.h"
#include "src/store/postgres/pg_version_store.h"
#include "src/store/store.h"

namespace engram {

struct PgStoreOptions {
  std::string url;  // postgresql://...; its own parameters win
  PgConnectOptions connect;
  // Where this process keeps files derived from the store (saved vector
  // indexes): a path prefix on this machine; Store::SidecarPrefix.
  std::string sidecar_prefix;
};

class PgStore final : public Store {
 public:
  // Connects and makes the schema when the database has none.
  static Result<std::unique_ptr<PgStore>> Open(const PgStoreOptions& options);
  ~PgStore() override;
  PgStore(const PgStore&) = delete;
  PgStore& operator=(const PgStore&) = delete;

  Status Transact(const std::function<Status()>& body) override;
  Status ReadTransact(const std::function<Status()>& body) override;
  // A connection whose transactions are read-only
  // (default_transaction_read_only).
  Result<std::unique_ptr<Store>> OpenReader() override;
  Result<std::unique_ptr<Store>> OpenWriter() override;

  FactStore& facts() override { return facts_; }
  VectorStore& vectors() override { return vectors_; }
  VersionStore& versions() override { return versions_; }
  HypothesisStore& hypotheses() override { return hypotheses_; }
  ChunkStore& chunks() override { return chunks_; }

  Result<std::string> GetMeta(const std::string& key) override;
  Status SetMeta(const std::string& key, const std::string& value) override;
  // The per-scope totals against the facts (PostgreSQL keeps its own
  // indexes whole).
  Status CheckIntegrity(std::vector<std::string>* problems,
                        std::vector<std::string>* skipped) override;
  std::optional<std::string> TakeBackgroundProblem() override { return std::nullopt; }
  // Never: whether the database may be written is the server's to say.
  bool ReadOnly() const override { return false; }
  std::string SidecarPrefix() const override { return options_.sidecar_prefix; }

 private:
  PgStore(PgStoreOptions options, std::unique_ptr<PgConnection> db, bool reader);
  // A new connection to options.url; a reader's transactions are read-only.
  static Result<std::unique_ptr<PgConnection>> Connect(const PgStoreOptions& options, bool reader);
  Status RunInTransaction(const char* begin, const std::function<Status()>& body);

  const PgStoreOptions options_;
  const bool reader_;  // opened by OpenReader
  // The connection, shared with the parts.
  PgSession session_;
  PgFactStore facts_;
  PgVectorStore vectors_;
  PgVersionStore versions_;
  PgHypothesisStore hypotheses_;
  PgChunkStore chunks_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_STORE_H_
