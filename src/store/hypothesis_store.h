// HypothesisStore: HyDE hypotheses cached in the store's SQLite file
// (DESIGN §5), keyed by the LLM that wrote them ("openai:gpt-4o-mini"), the
// prompt's version and the query text, so a repeated query costs no LLM
// call and a new prompt or model never reuses an old answer.
//
// Thread-safety: none; it shares the FactStore's connection, which the
// engine serialises. Put must run inside FactStore::Transact().
#ifndef ENGRAM_SRC_STORE_HYPOTHESIS_STORE_H_
#define ENGRAM_SRC_STORE_HYPOTHESIS_STORE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "engram/clock.h"
#include "engram/status.h"
#include "src/store/sqlite_db.h"

namespace engram {

struct HypothesisKey {
  std::string llm;  // Llm::Name()
  int prompt_version = 0;
  std::string query;
};

class HypothesisStore {
 public:
  explicit HypothesisStore(SqliteDb* db) : db_(db) {}

  // The cached hypothesis; nullopt when there is none.
  Result<std::optional<std::string>> Get(const HypothesisKey& key);
  // Stores (or replaces) the hypothesis for `key`.
  Status Put(const HypothesisKey& key, const std::string& hypothesis, Timestamp now);
  // Number of cached hypotheses.
  Result<int64_t> Count();

 private:
  SqliteDb* db_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_HYPOTHESIS_STORE_H_
