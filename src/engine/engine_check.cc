// EngineImpl::Check: reads the whole store and names what is not whole
// (docs/ARCHITECTURE.md, "Corruption noticed, not served"). Three phases,
// each on the engine's own connection (which, on SQLite, knows the `engram`
// tokenizer that the stock sqlite3 shell lacks): the backend's own checks
// (Store::CheckIntegrity), fact ids against content, stored vectors.
#include <string>
#include <vector>

#include "src/common/utf8.h"
#include "src/engine/engine_impl.h"
#include "src/store/fact_id.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

Status CheckFactIds(FactStore& facts, CheckReport* report) {
  return facts.ForEach({}, [&](const StoredFact& stored) {
    const Fact& f = stored.fact;
    ++report->facts;
    std::string where = "fact " + f.id;
    where += " (scope '" + f.scope + "'): ";
    if (const std::string wrong = IdMismatch(f.id, f.content); !wrong.empty()) {
      report->problems.push_back(where + wrong + ": it changed outside engram");
    }
    return true;
  });
}

}  // namespace

Result<CheckReport> EngineImpl::Check() {
  CheckReport report;
  std::lock_guard lock(mutex_);
  ENGRAM_RETURN_IF_ERROR(store_->CheckIntegrity(&report.problems, &report.skipped));
  ENGRAM_RETURN_IF_ERROR(CheckFactIds(store_->facts(), &report));
  // Stored vectors, space by space.
  ENGRAM_ASSIGN_OR_RETURN(const std::vector<SpaceInfo> spaces, store_->vectors().Spaces());
  for (const SpaceInfo& info : spaces) {
    const int64_t space_id = info.id;
    const size_t dimension = info.space.dimension;
    const EmbeddingSpace& space_of = info.space;
    const std::string space = space_of.Key();
    struct Unusable {
      std::string scope;
      int64_t fact_rowid = 0;
      std::string why;
    };
    std::vector<Unusable> bad;
    ENGRAM_RETURN_IF_ERROR(store_->vectors().ForEachBlob(
        space_id, [&](const std::string& scope, const VectorRef& ref, std::string_view blob) {
          ++report.vectors;
          Status usable = CheckVectorBlob(blob, dimension, space_of.MaxVectorsPerDocument());
          if (!usable.ok()) bad.push_back({scope, ref.fact_rowid, usable.message()});
        }));
    for (const auto& [scope, fact_rowid, why] : bad) {
      Result<std::string> fact = store_->vectors().FactIdOf(scope, fact_rowid);
      std::string problem = fact.ok()
                                ? "fact " + *fact
                                : "a vector of no fact (row " + std::to_string(fact_rowid) + ")";
      problem += ": its vector in space " + space;
      problem += " is unusable (" + why;
      problem += "); `engram backfill` replaces it";
      report.problems.push_back(std::move(problem));
    }
  }
  return report;
}

}  // namespace engram
