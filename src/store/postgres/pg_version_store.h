// PgVersionStore: VersionStore in PostgreSQL (pg_schema.h's
// fact_versions, keyed by scope and the two facts' labels; a link goes
// with either fact by its foreign keys).
//
// Thread-safety: none; it works on its PgStore's connection.
#ifndef ENGRAM_SRC_STORE_POSTGRES_PG_VERSION_STORE_H_
#define ENGRAM_SRC_STORE_POSTGRES_PG_VERSION_STORE_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "src/store/postgres/pg_connection.h"
#include "src/store/postgres/pg_session.h"
#include "src/store/version_store.h"

namespace engram {

class PgVersionStore final : public VersionStore, private PgPart {
 public:
  // Works on `session`\'s connection.
  explicit PgVersionStore(PgSession* session) : PgPart(session) {}

  Status Put(const std::string& scope, const VersionLink& link) override;
  Result<std::vector<VersionLink>> NewerThan(const std::vector<std::string>& scopes,
                                             const std::vector<int64_t>& rowids) override;
  Result<std::vector<VersionLink>> All() override;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_POSTGRES_PG_VERSION_STORE_H_
