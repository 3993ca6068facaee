// MigrateStore (include/engram/migrate.h): both stores opened as the engine
// opens them, then CopyStore (src/store/store_copy.h).
#include <string>

#include "engram/migrate.h"
#include "src/engine/fact_validator.h"
#include "src/engine/store_opener.h"
#include "src/lexical/lexical_searcher.h"
#include "src/store/store_copy.h"

namespace engram {

Result<MigrateReport> MigrateStore(const EngineOptions& from_options,
                                   const EngineOptions& to_options) {
  ENGRAM_RETURN_IF_ERROR(ValidateEngineOptions(from_options).WithContext("migrate: source"));
  ENGRAM_RETURN_IF_ERROR(ValidateEngineOptions(to_options).WithContext("migrate: destination"));
  EngineOptions existing = from_options;
  existing.create_if_missing = false;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Store> from, OpenEngineStore(existing));
  EngineOptions made = to_options;
  made.create_if_missing = true;
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<Store> to, OpenEngineStore(made));
  ENGRAM_ASSIGN_OR_RETURN(const StoreCopyCounts copied, CopyStore(*from, *to, &CountFactText));
  MigrateReport report;
  report.facts = copied.facts;
  report.version_links = copied.version_links;
  report.spaces = copied.spaces;
  report.vectors = copied.vectors;
  report.hypotheses = copied.hypotheses;
  report.attachments = copied.attachments;
  report.chunks = copied.chunks;
  report.chunk_vectors = copied.chunk_vectors;
  report.warnings = copied.skipped;
  return report;
}

}  // namespace engram
