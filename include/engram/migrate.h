// Moving a memory between stores (`engram migrate`): everything one store
// holds, copied into another of either kind, a SQLite file or a PostgreSQL
// database.
#ifndef ENGRAM_MIGRATE_H_
#define ENGRAM_MIGRATE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engram/export.h"
#include "engram/options.h"
#include "engram/status.h"

namespace engram {

struct MigrateReport {
  int64_t facts = 0;          // every version of every fact, each field as stored
  int64_t version_links = 0;  // which fact is a newer version of which
  int64_t spaces = 0;         // embedding spaces
  int64_t vectors = 0;        // stored vectors, every space
  int64_t hypotheses = 0;     // cached HyDE hypotheses
  int64_t attachments = 0;    // attached file trees, with their files
  int64_t chunks = 0;         // their chunks
  int64_t chunk_vectors = 0;  // the chunks' vectors, every space
  // What was not copied, and why (unusable vectors).
  std::vector<std::string> warnings;
};

// Copies the store `from` names (its store_url, else its db_path) into the
// one `to` names, made when missing; `to` must hold no fact. Facts keep
// every field (access counts, history, expiry), so a copy exports the same
// JSONL as its source. The destination is written in one transaction: a
// copy that fails leaves it as it was. Attached files are copied with
// their chunks and vectors; they are read from disk again only by the next
// `engram context refresh`.
ENGRAM_EXPORT Result<MigrateReport> MigrateStore(const EngineOptions& from,
                                                 const EngineOptions& to);

}  // namespace engram

#endif  // ENGRAM_MIGRATE_H_
