// MigrateStore (include/engram/migrate.h): both stores opened as the engine
// opens them, then CopyStore (src/store/store_copy.h).
#include <string>

#include "engram/migrate.h"
#include "src/context/context_store.h"
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
  for (const std::string& skipped : copied.skipped) {
    report.warnings.push_back(skipped + "; not copied (`engram backfill` embeds its fact again)");
  }
  if (SqliteDb* db = from->sqlite()) {
    ENGRAM_ASSIGN_OR_RETURN(const std::vector<StoredAttachment> attachments,
                            ContextStore(db).List());
    if (!attachments.empty()) {
      report.warnings.push_back(std::to_string(attachments.size()) +
                                " attached file tree(s) not copied; attach them again on the "
                                "destination (`engram context attach`)");
    }
  }
  return report;
}

}  // namespace engram
