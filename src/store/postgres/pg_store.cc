#include "src/store/postgres/pg_store.h"

#include <functional>
#include <string>
#include <utility>

#include "src/store/postgres/pg_schema.h"

namespace engram {

PgStore::PgStore(PgStoreOptions options, std::unique_ptr<PgConnection> db, bool reader)
    : options_(std::move(options)),
      reader_(reader),
      session_(std::move(db), [this] { return Connect(options_, reader_); }),
      facts_(&session_),
      vectors_(&session_),
      versions_(&session_),
      hypotheses_(&session_),
      chunks_(&session_) {}

PgStore::~PgStore() = default;

Result<std::unique_ptr<PgConnection>> PgStore::Connect(const PgStoreOptions& options, bool reader) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db,
                          PgConnection::Connect(options.url, options.connect));
  if (reader) ENGRAM_RETURN_IF_ERROR(db->Exec("SET default_transaction_read_only = on"));
  return db;
}

Result<std::unique_ptr<PgStore>> PgStore::Open(const PgStoreOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db, Connect(options, /*reader=*/false));
  ENGRAM_RETURN_IF_ERROR(EnsurePgSchema(*db).status());
  return std::unique_ptr<PgStore>(new PgStore(options, std::move(db), /*reader=*/false));
}

Result<std::unique_ptr<Store>> PgStore::OpenReader() {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db, Connect(options_, /*reader=*/true));
  return std::unique_ptr<Store>(new PgStore(options_, std::move(db), /*reader=*/true));
}

Result<std::unique_ptr<Store>> PgStore::OpenWriter() {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<PgConnection> db, Connect(options_, /*reader=*/false));
  return std::unique_ptr<Store>(new PgStore(options_, std::move(db), /*reader=*/false));
}

Status PgStore::Transact(const std::function<Status()>& body) {
  return RunInTransaction("BEGIN", body);
}

Status PgStore::ReadTransact(const std::function<Status()>& body) {
  return RunInTransaction("BEGIN ISOLATION LEVEL REPEATABLE READ", body);
}

Status PgStore::RunInTransaction(const char* begin, const std::function<Status()>& body) {
  // The connection is taken once, made again first if it was lost: COMMIT
  // and ROLLBACK go where BEGIN went, never to a new connection.
  PgConnection& db = session_.Connection();
  if (!*session_.TransactionFlag()) session_.LockedScopes().clear();
  return RunTransaction([&db](const char* sql) { return db.Exec(sql); }, begin,
                        session_.TransactionFlag(), body);
}

Result<std::string> PgStore::GetMeta(const std::string& key) {
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r, session_.Connection().Query("SELECT value FROM engram_meta WHERE key = $1",
                                                    {PgParam::Text(key)}));
  if (r.Rows() == 0) return NotFound("store: no meta value '" + key + "'");
  return std::string(r.Text(0, 0));
}

Status PgStore::SetMeta(const std::string& key, const std::string& value) {
  return session_.Connection()
      .Query(
          "INSERT INTO engram_meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE "
          "SET value = excluded.value",
          {PgParam::Text(key), PgParam::Text(value)})
      .status();
}

Status PgStore::CheckIntegrity(std::vector<std::string>* problems,
                               std::vector<std::string>* /*skipped*/) {
  // The totals BM25 reads against the facts they count (a scope whose
  // facts all went keeps a row of zeros, for its vector counts).
  ENGRAM_ASSIGN_OR_RETURN(
      const PgResult r,
      session_.Connection().Query(
          "SELECT coalesce(s.scope, t.scope) FROM scope_stats s FULL JOIN (SELECT scope, "
          "count(*) AS facts, sum(content_terms) AS content_terms, sum(tags_terms) AS "
          "tags_terms, sum(portuguese::integer) AS portuguese_facts FROM facts GROUP BY "
          "scope) t USING (scope) WHERE (coalesce(s.facts, 0), coalesce(s.content_terms, 0), "
          "coalesce(s.tags_terms, 0), coalesce(s.portuguese_facts, 0)) IS DISTINCT FROM "
          "(coalesce(t.facts, 0), coalesce(t.content_terms, 0), coalesce(t.tags_terms, 0), "
          "coalesce(t.portuguese_facts, 0)) ORDER BY 1"));
  for (int i = 0; i < r.Rows(); ++i) {
    problems->push_back("scope_stats: the totals of scope '" + std::string(r.Text(i, 0)) +
                        "' do not match its facts");
  }
  return Status::OK();
}

}  // namespace engram
