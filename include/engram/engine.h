// Engine: the memory. Adds, finds, lists, forgets, imports and exports facts
// of one SQLite store, and ranks them for a query.
//
// Thread-safety: an Engine may be used from several threads; writes are
// serialised by the store. Ownership: Open() returns the only owner.
#ifndef ENGRAM_ENGINE_H_
#define ENGRAM_ENGINE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engram/explain.h"
#include "engram/fact.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram {

struct SearchHit {
  Fact fact;
  double score = 0.0;
  Explanation explanation;  // filled when SearchOptions::explain
};

struct SearchResponse {
  std::vector<SearchHit> hits;
  std::vector<std::string> query_terms;     // analysed terms of the query
  std::string language;                     // language detected for the query
  size_t candidates = 0;                    // facts scored before the cut to k
  bool temporal_fallback = false;           // no lexical candidate: ranked by time
  std::vector<std::string> missing_scopes;  // searched scopes that hold no fact
  // Problems that did not stop the search (e.g. access not recorded because
  // another process held the write lock).
  std::vector<std::string> warnings;
};

struct AddOutcome {
  Fact fact;
  bool created = false;  // false: merged into an existing fact
};

struct ImportOptions {
  // Called after each fact with (done, total). May be empty.
  std::function<void(size_t, size_t)> progress;
};

struct ImportReport {
  size_t added = 0;
  size_t merged = 0;
};

struct ListOptions {
  std::vector<std::string> scopes;  // empty means {"default"}
  std::string tag;                  // only facts with this tag; empty: any
  std::string kind;                 // only facts of this kind; empty: any
  size_t limit = 50;                // 0 means no limit
  size_t offset = 0;
};

// What to forget; exactly one of ids, tag or whole_scope.
struct ForgetRequest {
  std::string scope = kDefaultScope;
  std::vector<std::string> ids;  // full ids or unique prefixes (>= 4 chars)
  std::string tag;
  bool whole_scope = false;
};

struct StoreStats {
  int64_t facts = 0;
  std::vector<std::pair<std::string, int64_t>> scopes;  // scope, fact count
  int schema_version = 0;
  std::string db_path;
};

class Engine {
 public:
  static Result<std::unique_ptr<Engine>> Open(const EngineOptions& options);
  virtual ~Engine() = default;

  // Adds one fact, or merges it into the existing fact with the same content
  // in the scope (tags merged, updated_at bumped, counters kept).
  virtual Result<AddOutcome> Add(const NewFact& fact) = 0;

  // Checks a fact without storing it: content non-empty, valid UTF-8, within
  // limits, metadata a JSON object, confidence in [0, 1], id matching.
  virtual Status Validate(const NewFact& fact) const = 0;

  // Adds every fact in one transaction: all or nothing.
  virtual Result<ImportReport> Import(const std::vector<NewFact>& facts,
                                      const ImportOptions& options) = 0;

  // Looks a fact up by id or unique id prefix (>= 4 hex chars).
  virtual Result<Fact> Get(const std::string& scope, const std::string& id_or_prefix) = 0;

  virtual Result<std::vector<Fact>> List(const ListOptions& options) = 0;

  // Returns how many facts were removed. Ids that do not exist, and a whole
  // scope that holds nothing, are NotFound errors; then nothing is removed.
  virtual Result<int64_t> Forget(const ForgetRequest& request) = 0;

  // Calls `sink` for every fact of the scopes (all scopes when empty), in
  // scope then creation order. Stops early when `sink` returns false.
  virtual Status Export(const std::vector<std::string>& scopes,
                        const std::function<bool(const Fact&)>& sink) = 0;

  virtual Result<SearchResponse> Search(const std::string& query, const SearchOptions& options) = 0;

  virtual Result<StoreStats> Stats() = 0;

  virtual const EngineOptions& options() const = 0;
};

}  // namespace engram

#endif  // ENGRAM_ENGINE_H_
