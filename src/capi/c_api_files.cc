// The C API's export, import and backfill.
#include <fstream>
#include <string>
#include <vector>

#include "src/capi/handles.h"
#include "src/common/private_files.h"
#include "src/engine/fact_files.h"

using engram::Status;
using engram::capi::Guarded;
using engram::capi::Required;

extern "C" {

engram_code engram_export(engram_t* db, const char* const* scopes, size_t count, const char* path,
                          size_t* exported, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_export", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(path, "engram_export", "path"));
    if (count > 0) ENGRAM_RETURN_IF_ERROR(Required(scopes, "engram_export", "scopes"));
    std::vector<std::string> wanted;
    for (size_t i = 0; i < count; ++i) {
      if (scopes[i] == nullptr) {
        return engram::InvalidArgument("engram_export: scope " + std::to_string(i) + " is NULL");
      }
      wanted.emplace_back(scopes[i]);
    }
    // Memories are private: a new export file is 0600.
    ENGRAM_RETURN_IF_ERROR(engram::CreatePrivateFile(path).WithContext("engram_export"));
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    if (!file) return engram::IOError(std::string("engram_export: cannot write '") + path + "'");
    ENGRAM_ASSIGN_OR_RETURN(size_t written,
                            engram::WriteFactsJsonl(*db->engine, wanted, file, path));
    if (exported != nullptr) *exported = written;
    return Status::OK();
  });
}

engram_code engram_import(engram_t* db, const char* path, int skip_bad, size_t* added,
                          size_t* merged, size_t* skipped, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_import", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(path, "engram_import", "path"));
    std::ifstream file(path, std::ios::binary);
    if (!file) return engram::NotFound(std::string("engram_import: cannot read '") + path + "'");
    ENGRAM_ASSIGN_OR_RETURN(
        engram::FactRecords records,
        engram::ReadFactRecords(*db->engine, file, engram::FactFileFormat(path), path));
    if (!records.errors.empty() && skip_bad == 0) {
      std::string message = "engram_import: " + records.errors.front();
      if (records.errors.size() > 1) {
        message += " (and " + std::to_string(records.errors.size() - 1) + " more bad record(s))";
      }
      return engram::InvalidArgument(message);
    }
    ENGRAM_ASSIGN_OR_RETURN(engram::ImportReport report, db->engine->Import(records.good, {}));
    if (added != nullptr) *added = report.added;
    if (merged != nullptr) *merged = report.merged;
    if (skipped != nullptr) *skipped = records.errors.size();
    return Status::OK();
  });
}

engram_code engram_backfill(engram_t* db, size_t limit, size_t* embedded, size_t* remaining,
                            char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_backfill", "db"));
    engram::BackfillOptions options;
    options.limit = limit;
    ENGRAM_ASSIGN_OR_RETURN(engram::BackfillReport report, db->engine->Backfill(options));
    if (embedded != nullptr) *embedded = report.embedded;
    if (remaining != nullptr) *remaining = report.remaining;
    return Status::OK();
  });
}

}  // extern "C"
