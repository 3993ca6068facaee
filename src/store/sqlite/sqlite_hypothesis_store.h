// SqliteHypothesisStore: HypothesisStore on a SQLite connection
// (hyde_hypotheses).
//
// Thread-safety: none; it works on its SqliteStore's connection.
#ifndef ENGRAM_SRC_STORE_SQLITE_SQLITE_HYPOTHESIS_STORE_H_
#define ENGRAM_SRC_STORE_SQLITE_SQLITE_HYPOTHESIS_STORE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "src/store/hypothesis_store.h"
#include "src/store/sqlite/sqlite_db.h"

namespace engram {

class SqliteHypothesisStore final : public HypothesisStore {
 public:
  explicit SqliteHypothesisStore(SqliteDb* db) : db_(db) {}

  Result<std::optional<std::string>> Get(const HypothesisKey& key) override;
  Status Put(const HypothesisKey& key, const std::string& hypothesis, Timestamp now) override;
  Result<int64_t> Count() override;
  Status ForEach(const std::function<void(const HypothesisKey&, const std::string&, Timestamp)>&
                     sink) override;

 private:
  SqliteDb* db_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SQLITE_HYPOTHESIS_STORE_H_
