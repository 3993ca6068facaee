// HypothesisStore: HyDE hypotheses cached in a Store (DESIGN §5), keyed by the LLM that wrote them
// ("openai:gpt-4o-mini"), the prompt's version and the query text, so a repeated query costs no LLM
// call and a new prompt or model never reuses an old answer.
//
// Thread-safety: none; it works on its Store's connection, one thread at a
// time. Put must run inside Store::Transact().
#ifndef ENGRAM_SRC_STORE_HYPOTHESIS_STORE_H_
#define ENGRAM_SRC_STORE_HYPOTHESIS_STORE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "engram/clock.h"
#include "engram/status.h"

namespace engram {

struct HypothesisKey {
  std::string llm;  // Llm::Name()
  int prompt_version = 0;
  std::string query;
};

class HypothesisStore {
 public:
  virtual ~HypothesisStore() = default;

  // The cached hypothesis; nullopt when there is none.
  virtual Result<std::optional<std::string>> Get(const HypothesisKey& key) = 0;
  // Stores (or replaces) the hypothesis for `key`.
  virtual Status Put(const HypothesisKey& key, const std::string& hypothesis, Timestamp now) = 0;
  // Number of cached hypotheses.
  virtual Result<int64_t> Count() = 0;
  // Every cached hypothesis with its key and when it was written, in no set
  // order (a copy of the store reads them).
  virtual Status ForEach(
      const std::function<void(const HypothesisKey&, const std::string&, Timestamp)>& sink) = 0;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_HYPOTHESIS_STORE_H_
