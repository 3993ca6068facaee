// PgHypothesisStore: HypothesisStore in PostgreSQL (pg_schema.h's
// hyde_hypotheses).
//
// Thread-safety: none; it works on its PgStore's connection.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_HYPOTHESIS_STORE_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_HYPOTHESIS_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "src/store/hypothesis_store.h"
#include "src/store/postgres/pg_connection.h"

namespace engram {

class PgHypothesisStore final : public HypothesisStore {
 public:
  // Works on `*db`, which its owner may replace (a reconnection).
  explicit PgHypothesisStore(const std::unique_ptr<PgConnection>* db) : db_(db) {}

  Result<std::optional<std::string>> Get(const HypothesisKey& key) override;
  Status Put(const HypothesisKey& key, const std::string& hypothesis, Timestamp now) override;
  Result<int64_t> Count() override;
  Status ForEach(const std::function<void(const HypothesisKey&, const std::string&, Timestamp)>&
                     sink) override;

 private:
  PgConnection& db() const { return **db_; }  // NOLINT(readability-identifier-naming): accessor

  const std::unique_ptr<PgConnection>* db_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_HYPOTHESIS_STORE_H_
