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
#include "src/store/postgres/pg_session.h"

namespace engram {

class PgHypothesisStore final : public HypothesisStore, private PgPart {
 public:
  // Works on `session`\'s connection.
  explicit PgHypothesisStore(PgSession* session) : PgPart(session) {}

  Result<std::optional<std::string>> Get(const HypothesisKey& key) override;
  Status Put(const HypothesisKey& key, const std::string& hypothesis, Timestamp now) override;
  Result<int64_t> Count() override;
  Status ForEach(const std::function<void(const HypothesisKey&, const std::string&, Timestamp)>&
                     sink) override;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_HYPOTHESIS_STORE_H_
